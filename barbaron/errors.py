"""Errors the library raises for bad input; the command line prints them as one line, exit 2."""


class UsageError(ValueError):
    """Bad input from the user (an argument, a folder, a spec): says what is wrong and how to
    fix it, in one line."""


class StartedOtherwise(UsageError):
    """A resume refused because the interrupted run was started with other arguments or
    settings (a study tells it apart from the other refusals: it can replay those)."""


class RunFailed(RuntimeError):
    """A run that could not go on (a worker died, the disk is full, a folder is not writable):
    says what happened and how to resume; exit status 1."""


class RunInterrupted(KeyboardInterrupt):
    """A run stopped by Ctrl-C or SIGTERM: says what was kept and how to resume. Still a
    ``KeyboardInterrupt``, so that a notebook's ``except Exception`` does not swallow Ctrl-C."""


def interrupted_when_complete(out: object) -> RunInterrupted:
    """What a Ctrl-C that came once a run's results were complete says: where they are (or,
    for a run in memory, that they are dropped with the call)."""
    where = (
        f"its results are in {out}"
        if out is not None
        else "its results were in memory and are dropped: run it again"
    )
    return RunInterrupted(f"interrupted after the run was complete: {where}")
