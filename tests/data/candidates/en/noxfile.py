import nox


@nox.session(python=["3.11", "3.12"])
def tests(session):
    session.install("-e", ".[test]")
    session.run("pytest", "-q", *session.posargs)


@nox.session(name="type-check")
def mypy(session):
    session.run("mypy", "src")


def helper():
    return None
