"""The job: what ``fill`` and ``build`` were asked to do, in one place.

- :mod:`qrelkit.job.options`: every option a job takes, declared once (name, type, default, help);
  the table drives the command line, plan files and the docs.
- :mod:`qrelkit.job.plan`: plan files (``--plan plan.toml``), read against that table.
- :mod:`qrelkit.job.stored`: the job parsed once into one typed value, stored in the workspace; a later
  call continues exactly it, and ``--rejudge`` says what changes.
- :mod:`qrelkit.job.run`: ``fill`` and ``build`` as resumable library functions (cli/ and api.py call them).

Nothing is imported here, so that ``import qrelkit.job.options`` (the command line's start-up) stays light.
"""
