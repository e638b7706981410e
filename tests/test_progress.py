"""The progress bar: drawn only on a terminal, never in CI or with --quiet; counts what is left."""

from __future__ import annotations

import io

import pytest

from paramcount.runtime import progress


class TTY(io.StringIO):
    def isatty(self):
        return True


@pytest.fixture(autouse=True)
def _no_ci(monkeypatch):
    for var in ("CI", "PARAMCOUNT_PROGRESS", "TERM"):
        monkeypatch.delenv(var, raising=False)


def test_draws_on_a_terminal_naming_each_item_and_what_is_left():
    out = TTY()
    items = list(progress.track(["gpt2 a", "gpt2 b", "bert c"], stream=out))
    assert items == ["gpt2 a", "gpt2 b", "bert c"]
    text = out.getvalue()
    assert "1/3  gpt2 a  (2 left" in text and "3/3  bert c  (0 left" in text
    assert "[######" in text
    assert text.endswith("\r\x1b[K")  # the line is cleared at the end


@pytest.mark.parametrize("setup", ["quiet", "forced_off"])
def test_silent_when_asked(setup, monkeypatch):
    out = TTY()
    if setup == "forced_off":
        monkeypatch.setenv("PARAMCOUNT_PROGRESS", "0")
    assert list(progress.track(range(3), stream=out, quiet=setup == "quiet")) == [0, 1, 2]
    assert out.getvalue() == ""


@pytest.mark.parametrize("setup", ["not_a_tty", "ci", "dumb"])
def test_plain_line_per_architecture_off_a_terminal(setup, monkeypatch):
    """A CI log must show that a long run is alive: a plain line (no bar, no carriage return)
    each time the architecture changes."""
    out = io.StringIO() if setup == "not_a_tty" else TTY()
    if setup == "ci":
        monkeypatch.setenv("CI", "true")
    if setup == "dumb":
        monkeypatch.setenv("TERM", "dumb")
    items = ["gpt2 a", "gpt2 b", "bert c"]
    assert list(progress.track(items, stream=out)) == items
    assert out.getvalue() == "paramcount: 1/3 gpt2\nparamcount: 3/3 bert\n"


def test_forced_on_and_callback_form(monkeypatch):
    monkeypatch.setenv("CI", "true")
    monkeypatch.setenv("PARAMCOUNT_PROGRESS", "1")
    out = io.StringIO()
    with progress.Bar(2, stream=out) as bar:
        bar("llama llama2_7b_en")
        bar("llama llama2_13b")
        assert bar.done == 1
    assert bar.done == 2
    assert "2/2  llama llama2_13b  (0 left" in out.getvalue()


def test_cli_verify_progress_lines_and_quiet(capsys, monkeypatch):
    from paramcount.cli.main import main

    assert main(["verify", "gpt2", "--preset", "tiny", "--quiet"]) == 0
    out, err = capsys.readouterr()
    assert err == "" and "1 match, 0 mismatch" in out
    assert main(["verify", "gpt2", "--preset", "tiny"]) == 0  # capsys: not a terminal
    out, err = capsys.readouterr()
    assert err == "paramcount: 1/1 gpt2\n" and "1 match, 0 mismatch" in out


def test_clear_makes_room_for_output_and_the_next_step_redraws():
    out = TTY()
    with progress.Bar(2, stream=out) as bar:
        bar.advance("proving gpt2")
        bar.clear()
        out.write("gpt2: proven\n")
        bar.advance("proving bert")
    text = out.getvalue()
    assert "1/2  proving gpt2" in text and "\r\x1b[Kgpt2: proven\n" in text
    assert text.index("gpt2: proven") < text.index("2/2  proving bert")


def test_plain_lines_reach_the_total():
    """Steps of one architecture (a preset against Keras, then transformers) print one line:
    the run still says it reached its total at the end (issue 22 §3), and only when it did."""
    out = io.StringIO()
    with progress.Bar(2, stream=out) as bar:
        bar("opt tiny")
        bar("opt tiny")
    assert out.getvalue() == "paramcount: 1/2 opt\nparamcount: 2/2 done\n"
    out = io.StringIO()
    with pytest.raises(KeyboardInterrupt), progress.Bar(2, stream=out) as bar:
        bar("opt tiny")
        raise KeyboardInterrupt
    assert out.getvalue() == "paramcount: 1/2 opt\n"


def test_cli_verify_all_frameworks_progress_reaches_2_of_2(capsys):
    from paramcount.analyze.verify import transformers_missing

    if transformers_missing():  # (found without importing torch: this process may hold Keras)
        pytest.skip("the transformers extra is not installed")
    from paramcount.cli.main import main

    assert main(["verify", "opt", "--preset", "tiny", "--framework", "all"]) == 0
    _, err = capsys.readouterr()
    assert err == "paramcount: 1/2 opt\nparamcount: 2/2 done\n"
