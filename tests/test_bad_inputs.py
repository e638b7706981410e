"""A battery of bad inputs (issue 11): each ends with exit status 2, exactly one line on stderr
(``paramcount: error: ...``), nothing on stdout, no traceback, and no file changed.

In-process through ``paramcount.cli.main.main`` (fast); a few through a real subprocess at the end.
Nothing here starts a Keras build: every input is refused before any work.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from paramcount.cli.main import main

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
T = ["count", "gpt2", "--preset", "tiny", "--set"]
L7 = ["--set", "L=32", "v=32000", "M=32", "M_kv=32", "d_f=11008"]
SOLVE = ["solve", "llama", "--for", "d_e", *L7]

BAD: list[list[str]] = [
    # the command line itself
    [], ["frobnicate"], ["--frobnicate"], ["count"], ["formula"], ["solve", "llama"],
    ["formula", "gpt2", "--latex", "--json"], ["count", "gpt2", "--preset"],
    ["count", "gpt2", "--set"], ["list", "extra"], ["verify", "--all", "gpt2"],
    ["verify", "--all", "--preset", "tiny"], ["verify", "--all", "--set", "L=1"],
    ["verify", "gpt2", "--max-build", "-1"], ["verify", "gpt2", "--max-build", "x"],
    ["verify", "gpt2", "--max-build", "1.5"], ["report", "--output"], ["prove", "--frob"],
    # unknown names
    ["formula", "gpt5"], ["formula", "gtp2"], ["formula", "lamma"], ["formula", ""],
    ["formula", "GPT2"], ["formula", "gpt2 "], ["formula", "x" * 5000], [*T, "L" * 5000],
    [*T, "q" * 5000 + "=1"], ["formula", "../gpt2"], ["formula", "gpt2;ls"],
    ["count", "nope", "--set", "v=1"], ["verify", "gpt5"], ["verify", "gpt2", "gpt5"],
    ["prove", "gpt5"], ["solve", "gpt5", "--target", "7e9", "--for", "d_e"],
    ["count", "gpt2", "--preset", "gpt2_huge"], ["count", "gpt2", "--preset", ""],
    ["count", "mixtral", "--preset", "mixtral_8x7b_en"], ["verify", "gpt2", "--preset", "nope"],
    [*T, "q=3"], [*T, "d_ee=4"], [*T, "=3"], [*T, "L"], [*T, "L="], [*T, "=="], [*T, " L=2"],
    [*T, "L =2"], [*T, "tied=1"], [*T, "s=2"], [*T, "E=4"],
    # integers: one rule, never through float
    *[[*T, f"L={v}"] for v in ["0", "-3", "2.5", "two", "2.0", "1e3", "1e400", "٣", " 3", "3 ",
                               "0x10", "0b1", "3_", "_3", "1__0", "+", "-", "3.", "½", "inf",
                               "nan", "9007199254740993.0", "1,000", "३", "1" * 5000, "𝟑",
                               "3\n", "0_0", "-0"]],
    [*T, "zeta=2"], [*T, "zeta=-1"], [*T, "zeta=0"], [*T, "d_e=3"], [*T, "d_k=3"],
    [*T, "L=2", "L=3"], [*T, "L=2", "--set", "L=2"], [*T, "v=0"], [*T, "n=0"], [*T, "M=0"],
    [*T, "d_f=-1"], [*T, "M=33"],
    ["count", "gpt2"], ["count", "gpt2", "--set", "v=10", "n=4", "d_e=8", "M=2", "d_f=4"],
    ["count", "llama", "--preset", "llama2_7b_en", "--set", "M_kv=5"],
    ["count", "llama", "--preset", "llama2_7b_en", "--set", "M_kv=64"],
    ["count", "llama", "--preset", "llama2_7b_en", "--set", "d_e=4097"],
    # solve
    ["solve", "llama", "--for", "d_e", "--target", "7e9"],
    *[[*SOLVE, "--target", t] for t in ["0", "-7e9", "7x", "", "seven", "1.5", "7e9e9", "nan",
                                        "inf", "0.1", "1e-3", "7BB", "--", "1e99999999"]],
    [*SOLVE, "d_e=4096", "--target", "7e9"], ["solve", "llama", "--target", "7e9", "--for", "q",
                                             *L7],
    ["solve", "llama", "--target", "7e9", "--for", "d_k", *L7],
    ["solve", "gpt2", "--target", "7e9", "--for", "s", "--preset", "gpt2_base_en"],
    ["solve", "llama", "--target", "7e9", "--for", "d_e", "--set", "L=32"],
    # runaway builds, refused before starting
    ["verify", "gpt2", "--preset", "tiny", "--set", "L=100000"],
    ["verify", "gpt2", "--preset", "tiny", "--set", "L=10000000000"],
    ["verify", "gpt2", "--preset", "tiny", "--max-build", "5"],
    # config files that are not one (issue 17 §7): refused by type, never read forever
    ["count", "--config", "/dev/zero"], ["count", "--config", "/dev/null"],
    ["count", "--config", "/dev/full"], ["count", "--config", "/"], ["count", "--config", ""],
    ["count", "--config", "/no/such/config.json"], ["verify", "--config", "/dev/zero"],
    # options given twice, a negative budget (issue 22 §2)
    ["count", "gpt2", "--preset", "tiny", "--preset", "tiny"],
    ["count", "--config", "/dev/null", "--config", "/dev/null"],
    [*SOLVE, "--target", "-7e9"], [*SOLVE, "--target", "1e9", "--target", "2e9"],
    # plugins
    ["--plugin", "no_such_plugin_module_xyz", "list"], ["--plugin", "/no/such/file.py", "list"],
    ["list", "--plugin", "no_such_plugin_module_xyz"],
]

# Output paths: refused before any work.
PATHS = ["/dev/full", "/dev/null", "/etc/passwd/x.md", "/proc/version", "/", "/proc/x/y.md",
         "/dev/full/x.md", ".", "/nonexistent_dir/x.md", "no_such_folder/x.md"]


def test_the_battery_is_large_enough():
    assert len(BAD) + len(PATHS) >= 100


@pytest.fixture
def guarded(tmp_path, monkeypatch):
    """Run in an empty folder holding one precious file; afterwards, nothing may have changed
    there, nor in the repository's report."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "precious.md").write_text("precious\n")
    from paramcount.output import report

    def no_work(*a, **k):
        raise AssertionError("work started before the input was checked")

    monkeypatch.setattr(report, "verify_all", no_work)
    golden = os.path.join(ROOT, "reports", "conformance.md")
    before = os.stat(golden).st_mtime_ns if os.path.exists(golden) else None
    yield tmp_path
    assert sorted(os.listdir(tmp_path)) == ["precious.md"]
    assert (tmp_path / "precious.md").read_text() == "precious\n"
    assert (os.stat(golden).st_mtime_ns if os.path.exists(golden) else None) == before


def _check(capsys, argv):
    try:
        code = main(argv)
    except SystemExit as exc:  # only --help / --version exit this way, and none is here
        pytest.fail(f"SystemExit({exc.code}) for {argv}")
    out, err = capsys.readouterr()
    assert code == 2, (argv, code, out, err)
    assert out == "", (argv, out)
    assert err.count("\n") == 1 and err.endswith("\n"), (argv, err)
    assert err.startswith("paramcount: error: "), (argv, err)
    assert "Traceback" not in err and len(err) < 600, (argv, err)


@pytest.mark.parametrize("argv", BAD, ids=lambda a: " ".join(a)[:60])
def test_bad_input(argv, capsys, guarded):
    _check(capsys, argv)


@pytest.mark.parametrize("path", PATHS)
def test_bad_output_path(path, capsys, guarded):
    _check(capsys, ["report", "--quiet", "--output", path])


@pytest.mark.parametrize("argv", [["formula", "gtp2"], [*T, "L=2.0"],
                                  ["report", "--output", "/dev/full"],
                                  ["verify", "gpt2", "--preset", "tiny", "--set", "L=100000"]])
def test_bad_input_in_a_real_process(argv, tmp_path):
    proc = subprocess.run([sys.executable, "-m", "paramcount", *argv], capture_output=True,
                          text=True, cwd=tmp_path, env={**os.environ, "PYTHONPATH": ROOT},
                          timeout=120)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("paramcount: error: ")
    assert os.listdir(tmp_path) == []


# --- the on-disk cache (issue 22 §1): a bad entry or folder is never the user's problem --------
def _count(cache_dir, *args, env=None):
    return subprocess.run([sys.executable, "-m", "paramcount", "count", *args],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": ROOT, "PARAMCOUNT_CACHE_DIR":
                               str(cache_dir), **(env or {})})


def _entries(cache_dir):
    return sorted(p for p in (cache_dir / "count").iterdir() if not p.name.startswith("."))


MIXTRAL = ["mixtral", "--preset", "mixtral_8_7b_en"]


def _edit_a_number(data: bytes) -> bytes:
    """A forged coefficient: the last 5-digit number of the entry, its first digit changed."""
    import re

    *_, m = re.finditer(rb"[1-9][0-9]{4}", data)
    digit = b"1" if data[m.start():m.start() + 1] != b"1" else b"2"
    return data[:m.start()] + digit + data[m.start() + 1:]


DAMAGE = {
    "empty": lambda b: b"",
    "truncated": lambda b: b[:len(b) // 2],
    "garbage": lambda b: bytes(range(256)) * 4,
    "one coefficient edited": _edit_a_number,
    "raises SystemExit on load": lambda b: b"raise SystemExit(3)\n",
    "not JSON but Python": lambda b: b"import os\nos._exit(5)\n",
}


@pytest.fixture(scope="module")
def expected_mixtral(tmp_path_factory):
    proc = _count(tmp_path_factory.mktemp("nocache"), *MIXTRAL, env={"PARAMCOUNT_CACHE": "0"})
    assert proc.returncode == 0 and "46,702,792,704" in proc.stdout
    return proc.stdout


@pytest.mark.parametrize("damage", DAMAGE)
def test_a_damaged_cache_entry_is_a_miss_and_is_rewritten(damage, tmp_path, expected_mixtral):
    """An empty, truncated or edited entry (a power cut, a careless or hostile edit) is a miss:
    the count is the true one, exit 0, nothing on stderr, and the entry is written anew."""
    assert _count(tmp_path, *MIXTRAL).returncode == 0
    (entry,) = _entries(tmp_path)
    good = entry.read_bytes()
    entry.write_bytes(DAMAGE[damage](good))
    proc = _count(tmp_path, *MIXTRAL)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, expected_mixtral, "")
    assert [e.read_bytes() for e in _entries(tmp_path)] == [good]  # rebuilt and rewritten


def test_the_cache_stores_data_not_code(tmp_path):
    import json

    assert _count(tmp_path, "gpt2", "--preset", "gpt2_base_en").returncode == 0
    (entry,) = _entries(tmp_path)
    header, _, payload = entry.read_bytes().partition(b"\n")
    assert entry.suffix == ".json" and b"sha256" in header
    table = json.loads(payload)
    assert table["id"] == "gpt2" and "lambda" not in payload.decode() and "def " not in \
        payload.decode()


@pytest.mark.parametrize("mode", [0o777, 0o770, 0o1777])
def test_a_cache_folder_others_can_write_is_ignored(mode, tmp_path, expected_mixtral):
    cache_dir = tmp_path / "c"
    assert _count(cache_dir, *MIXTRAL).returncode == 0
    (entry,) = _entries(cache_dir)
    entry.write_bytes(b"")  # what another user would leave there is not read
    os.chmod(cache_dir, mode)
    proc = _count(cache_dir, *MIXTRAL)
    assert proc.returncode == 0 and proc.stdout == expected_mixtral
    assert proc.stderr.count("\n") == 1 and str(cache_dir) in proc.stderr
    assert "writable by" in proc.stderr and "Traceback" not in proc.stderr
    assert entry.read_bytes() == b""  # nothing written there either


def test_without_a_home_folder_nothing_is_created(tmp_path):
    home = tmp_path / "no-such-home"
    env = {k: v for k, v in os.environ.items()
           if k not in ("PARAMCOUNT_CACHE_DIR", "XDG_CACHE_HOME")}
    for verbose in ([], ["--verbose"]):
        proc = subprocess.run([sys.executable, "-m", "paramcount", "count", "gpt2", "--preset",
                               "gpt2_base_en", *verbose], capture_output=True, text=True,
                              timeout=120, env={**env, "PYTHONPATH": ROOT, "HOME": str(home)})
        assert proc.returncode == 0 and "124,439,808" in proc.stdout
        assert not home.exists()
        if verbose:
            assert proc.stderr.count("\n") == 1 and "not caching" in proc.stderr
            assert str(home) in proc.stderr
        else:
            assert proc.stderr == ""


# --- hostile files (issue 30 §2–4): refused in seconds, one line, never hanging -----------------
def _shard(path, extra: str = "") -> None:
    """A valid one-tensor safetensors file (header JSON, padded to 8 bytes, then 4 bytes)."""
    import struct

    head = ('{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]' + extra + "}}").encode()
    head += b" " * (-len(head) % 8)
    path.write_bytes(struct.pack("<Q", len(head)) + head + b"\0" * 4)


def _fifo(path):
    os.mkfifo(path)
    return path


def _folder(tmp, *, shard: bool = True, index: str | None = None, config: str | None = None,
            fifo: str | None = None):
    tmp.mkdir(exist_ok=True)
    if shard:
        _shard(tmp / "model-00001-of-00002.safetensors")
    if fifo:
        _fifo(tmp / fifo)
    if index is not None:
        (tmp / "model.safetensors.index.json").write_text(index)
    if config is not None:
        (tmp / "config.json").write_text(config)
    return tmp


DEEP = "[" * 200_000 + "]" * 200_000
LONG = "1" * 5000  # past Python's 4,300-digit limit on int(str)
GPT2 = '{"model_type": "gpt2", "n_layer": 2, "n_embd": 8, "n_head": 2, "vocab_size": 10'
# name → (the command line, given a fresh folder; a word the one line must hold)
HOSTILE = {
    "FIFO .safetensors, count": (lambda t: ["count", "--checkpoint",
                                            _fifo(t / "m.safetensors")], "FIFO"),
    "FIFO .safetensors, verify": (lambda t: ["verify", "--checkpoint",
                                             _fifo(t / "m.safetensors")], "FIFO"),
    "a link to a FIFO": (lambda t: ["count", "--checkpoint", _link(t)], "FIFO"),
    "FIFO among shards, no index": (lambda t: ["count", "--checkpoint", _folder(
        t / "f", fifo="model-00002-of-00002.safetensors")], "FIFO"),
    "FIFO shard an index names": (lambda t: ["count", "--checkpoint", _folder(
        t / "f", fifo="model-00002-of-00002.safetensors",
        index='{"weight_map": {"a": "model-00001-of-00002.safetensors", '
              '"b": "model-00002-of-00002.safetensors"}}')], "FIFO"),
    "FIFO index": (lambda t: ["count", "--checkpoint", _fifo(
        t / "model.safetensors.index.json")], "FIFO"),
    "FIFO .weights.h5": (lambda t: ["count", "--checkpoint", _fifo(t / "m.weights.h5")], "FIFO"),
    "FIFO .gguf": (lambda t: ["count", "--checkpoint", _fifo(t / "m.gguf")], "FIFO"),
    "FIFO proof record": (lambda t: ["report", "--quiet", "--proofs", _fifo(t / "proofs.json"),
                                     "--output", t / "index.md"], "FIFO"),
    "index nested 200,000 deep": (lambda t: ["count", "--checkpoint", _folder(
        t / "f", index=DEEP)], "deep"),
    "index with a 5,000-digit number": (lambda t: ["count", "--checkpoint", _folder(
        t / "f", index='{"metadata": {"total_size": ' + LONG + '}, "weight_map": {}}')],
        "number too long"),
    "config with a 5,000-digit number": (lambda t: ["count", "--config", _folder(
        t / "f", shard=False, config=GPT2 + ', "unread": ' + LONG + "}") / "config.json"],
        "number too long"),
    "config nested 200,000 deep": (lambda t: ["count", "--config", _folder(
        t / "f", shard=False, config=DEEP) / "config.json"], "deep"),
    "config beside a checkpoint with a 5,000-digit number": (lambda t: [
        "count", "--checkpoint", _folder(t / "f", config=GPT2 + ', "x": [-' + LONG + "]}")],
        "number too long"),
    "derive --config with a 5,000-digit number": (lambda t: ["derive", "--config", _folder(
        t / "f", shard=False, config=GPT2 + ', "unread": ' + LONG + "}") / "config.json"],
        "number too long"),
}


def _link(t):
    (t / "x.safetensors").symlink_to(_fifo(t / "pipe"))
    return t / "x.safetensors"


GIB = 1 << 30


def _under_a_gigabyte() -> None:  # in the child, before exec
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (GIB, GIB))


@pytest.mark.parametrize("name", HOSTILE)
def test_a_hostile_file_is_one_line_in_seconds(name, tmp_path):
    """Run in a real process with a timeout: a FIFO that hangs the reader fails the test (a
    TimeoutExpired) instead of hanging the suite. Memory is bounded by the child's own address
    space, 1 GiB (resident memory is less): a run that needs more fails, as no rusage can tell
    here (a forked child's peak starts at its parent's, a test worker that imported TensorFlow)."""
    make, word = HOSTILE[name]
    argv = [str(a) for a in make(tmp_path)]
    proc = subprocess.run([sys.executable, "-m", "paramcount", *argv], capture_output=True,
                          text=True, cwd=tmp_path, timeout=30, stdin=subprocess.DEVNULL,
                          preexec_fn=_under_a_gigabyte,
                          env={**os.environ, "PYTHONPATH": ROOT, "OPENBLAS_NUM_THREADS": "1"})
    assert (proc.returncode, proc.stdout) == (2, ""), (argv, proc.returncode, proc.stderr)
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("paramcount: error: ")
    assert word in proc.stderr and len(proc.stderr) < 600, proc.stderr
    assert "memory" not in proc.stderr.lower(), proc.stderr  # not refused for the limit itself


HOSTILE_NAME = 'x"""; open("pwned", "w"); """.py'


@pytest.mark.parametrize("hostile", ["the file name", "the class and versions too"])
def test_an_emitted_plugin_is_data_whatever_its_name(hostile, tmp_path, monkeypatch):
    """``derive --emit-plugin FILE`` writes FILE's name (and the class and model type, from the
    user's config) into the module: as literals, so a name holding ``\"\"\"`` closes nothing and
    importing the plugin runs no code of the name's. The module is a docstring, imports, and
    assignments and one call of literals and names."""
    import ast

    from paramcount.analyze.derive.core import Derivation, Template
    from paramcount.analyze.derive.plugin import write_plugin
    from paramcount.model import registry

    monkeypatch.chdir(tmp_path)
    cls, tv = ("GPT2LMHeadModel", "4.57") if hostile == "the file name" else (
        'G"""; open("pwned", "w"); """', '4"""\n')
    d = Derivation("gpt2", cls, {"transformers": tv}, {"vocab_size": 10, "hidden_size": 4},
                   (), (), {})
    d.templates = [Template("model.wte.weight", "trainable", ((1, ()),),
                            (((1, ("vocab_size",)),), ((1, ("hidden_size",)),)))]
    plugin = tmp_path / HOSTILE_NAME
    write_plugin(str(plugin), d, {"model_type": '"""'}, "hostile_derived")
    tree = ast.parse(plugin.read_text(encoding="utf-8"))
    assert ast.get_docstring(tree) is not None and HOSTILE_NAME in ast.get_docstring(tree)
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)]
    assert sorted(ast.unparse(c.func) for c in calls) == ["json.loads", "json.loads",
                                                          "register_json"]
    try:
        code = main(["--plugin", str(plugin), "count", "hostile_derived", "--set",
                     "vocab_size=10"])
    finally:
        registry.unregister("hostile_derived")
    assert code == 0 and not (tmp_path / "pwned").exists()


def test_every_json_read_goes_through_the_bounded_parser():
    """One parser reads JSON (:func:`paramcount.runtime.inputs.parse_json`): a json.load(s)
    elsewhere would raise RecursionError or the int-digits ValueError as an internal error. The
    on-disk cache reads its own entries, with its own checks."""
    import ast

    allowed = {"runtime/inputs.py", "runtime/cache_store.py"}
    pkg = Path(ROOT) / "paramcount"
    found = [f"{f.relative_to(pkg)}:{n.lineno}" for f in sorted(pkg.rglob("*.py"))
             if not f.name.endswith("_test.py") and str(f.relative_to(pkg)) not in allowed
             for n in ast.walk(ast.parse(f.read_text(encoding="utf-8")))
             if isinstance(n, ast.Attribute) and n.attr in ("load", "loads")
             and isinstance(n.value, ast.Name) and n.value.id == "json"]
    assert not found, found
