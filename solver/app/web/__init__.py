"""``ataxx-solve serve``: an analysis board in the browser and a JSON API modelled on lila-tablebase's.

- :mod:`solver.app.web.inputs`: what a request sends, read and checked (a bad one is a
  :class:`~solver.app.web.inputs.BadInput`: a 400 with one line saying where and why);
- :mod:`solver.app.web.analysis`: the answers, from the Python API (the solver, the cache,
  ``verify``), computed in a worker thread within a budget;
- :mod:`solver.app.web.jobs`: the worker pool, identical requests sharing one job, stops;
- :mod:`solver.app.web.server`: the ASGI application (Starlette), its routes and static files
  (``static/``: HTML, JavaScript and CSS, no build step).
"""
