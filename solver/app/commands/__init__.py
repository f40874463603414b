"""The commands of ``ataxx-solve``, one module each: each adds its parser (``add_*``) and runs it
(``*_command``), calling the library and printing. :mod:`solver.app.cli` puts them together."""
