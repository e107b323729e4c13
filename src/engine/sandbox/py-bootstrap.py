# The Python sandbox's step runner, run once when a worker's interpreter starts (py-worker.ts).
# It preloads the standard-library modules recipes commonly use, refuses the modules that would
# reach outside the interpreter, and returns the function that runs one step: a fresh globals dict
# per step, `main(input)` called with the input as a dict, the result as JSON text. After each step
# the interpreter is put back as it was: modules the step imported are dropped, builtins, sys.path
# and the import hooks restored, so a step does not see what another one left.
import builtins
import sys


def _make_runner():
    # Preloaded: what recipes commonly import costs nothing at their steps. Any other module of the
    # standard library is imported by the step that asks for it, and dropped after it.
    import base64, collections, copy, csv, datetime, decimal, functools, hashlib, io  # noqa: F401
    import itertools, json, math, operator, re, string, time, urllib.parse  # noqa: F401
    import importlib.abc
    import importlib.machinery
    import traceback

    blocked = {'js', 'pyodide_js', 'pyodide', '_pyodide', '_pyodide_core', 'micropip', 'ctypes', '_ctypes', 'pyodide_http'}

    class Refuse(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            top = name.partition('.')[0]
            if top in blocked:
                raise ModuleNotFoundError(f"No module named '{name}'", name=name)
            return None

    import os
    import socket

    # No processes, files or network: the interpreter's emulated ones would be empty in any case;
    # refusing them by name makes the step's error say why.
    def refuse(what):
        def refused(*args, **kwargs):
            raise PermissionError(f'a Python step has no {what}')
        return refused

    for name in ('system', 'popen', 'fork', 'forkpty', 'execv', 'execve', 'execl', 'execlp', 'execvp', 'execvpe',
                 'spawnv', 'spawnve', 'spawnl', 'spawnle', 'posix_spawn', 'posix_spawnp', 'kill', 'killpg'):
        if hasattr(os, name):
            setattr(os, name, refuse('processes'))
    builtins.open = refuse('file system')
    io.open = builtins.open
    for name in ('create_connection', 'create_server', 'getaddrinfo', 'gethostbyname', 'gethostbyname_ex', 'gethostbyaddr'):
        setattr(socket, name, refuse('network'))
    for name in ('connect', 'connect_ex', 'bind', 'listen', 'sendto'):
        setattr(socket.socket, name, refuse('network'))

    for name in list(sys.modules):
        if name.partition('.')[0] in ('js', 'pyodide_js'):
            del sys.modules[name]
    sys.meta_path.insert(0, Refuse())

    baseline_modules = {name: module for name, module in sys.modules.items() if name.partition('.')[0] not in blocked}
    hidden_modules = {name: module for name, module in sys.modules.items() if name not in baseline_modules}
    baseline_builtins = dict(builtins.__dict__)
    baseline_path = list(sys.path)
    baseline_meta_path = list(sys.meta_path)
    baseline_recursion = sys.getrecursionlimit()

    def to_json(value):
        if isinstance(value, decimal.Decimal):
            if not value.is_finite():
                return str(value)
            return int(value) if value == value.to_integral_value() else float(value)
        if isinstance(value, (datetime.datetime, datetime.date, datetime.time)):
            return value.isoformat()
        if isinstance(value, (set, frozenset, tuple)):
            return list(value)
        if isinstance(value, (bytes, bytearray)):
            return bytes(value).decode('utf-8', 'replace')
        raise TypeError(f'Object of type {type(value).__name__} is not JSON serializable')

    def where(error):
        line = None
        for frame, lineno in traceback.walk_tb(error.__traceback__):
            if frame.f_code.co_filename == '<step>':
                line = lineno
        if isinstance(error, SyntaxError) and error.filename == '<step>':
            line = error.lineno
        return f' (line {line})' if line else ''

    def failure(kind, message):
        return json.dumps({'ok': False, 'type': kind, 'message': message[:1000]})

    def restore():
        for name in list(sys.modules):
            if name not in baseline_modules:
                del sys.modules[name]
        sys.modules.update(baseline_modules)
        builtins.__dict__.clear()
        builtins.__dict__.update(baseline_builtins)
        sys.path[:] = baseline_path
        sys.meta_path[:] = baseline_meta_path
        sys.setrecursionlimit(baseline_recursion)

    def run(code, input_json):
        # The pyodide modules step aside while the step runs, and come back for the runtime after it.
        for name in hidden_modules:
            sys.modules.pop(name, None)
        try:
            scope = {'__name__': '__main__', '__builtins__': builtins}
            exec(compile(code, '<step>', 'exec'), scope)
            main = scope.get('main')
            if not callable(main):
                return failure('Code error', 'the code must define def main(input): return {...}')
            result = main(json.loads(input_json))
            if result is None:
                result = {}
            if not isinstance(result, dict):
                return failure('Code error', f'main must return a dict, not {type(result).__name__}')
            return json.dumps({'ok': True, 'output': result}, default=to_json, allow_nan=False)
        except KeyboardInterrupt:
            return failure('Timeout', 'the code ran longer than its time limit')
        except MemoryError:
            return failure('Code error', 'the code used more memory than its limit')
        except RecursionError:
            return failure('Code error', 'the code recursed too deeply')
        except ModuleNotFoundError as error:
            return failure('Code error', f"ModuleNotFoundError: no module named '{error.name}': a Python step has the standard library only{where(error)}")
        except SystemExit:
            return failure('Code error', 'the code called exit()')
        except SyntaxError as error:
            return failure('Code error', f'{type(error).__name__}: {error.msg}{where(error)}')
        except BaseException as error:  # noqa: BLE001 - every error of the code is the step's error
            try:
                text = str(error)
            except BaseException:  # noqa: BLE001
                text = ''
            return failure('Code error', f'{type(error).__name__}: {text}{where(error)}' if text else f'{type(error).__name__}{where(error)}')
        finally:
            restore()
            sys.modules.update(hidden_modules)

    return run


_switchboard_run = _make_runner()
del _make_runner
