"""The streamed run file (tempering.run.runfile, issue 34): the file a run writes as it goes is
the in-memory run's InferenceData; a writer cut off at any byte leaves the last committed
checkpoint readable and resumable to the uninterrupted draws; resident memory holds a chunk, not
the run; and ``summary`` reads a run still being written."""

from __future__ import annotations

import ast
import io
import subprocess
import sys
import textwrap
from pathlib import Path

import arviz as az
import h5py
import numpy as np
import pytest
from cli_helpers import run_cli
from test_checkpoint import assert_same_run

from tempering import get_model, get_sampler, run_and_save, sample
from tempering.run import runfile
from tempering.run.checkpoint import committed_slot
from tempering.run.resume import resume_run

PLAIN = {"model": {}, "sampler": {}}


def _run(out: Path, draws: int = 40, **extra) -> Path:
    args = {"chains": 2, "warmup": 10, "seed": 0, "thin": 1, "chain_method": "vmap",
            "progress": False, **extra}
    return run_and_save("mvn_mean", "rwm", PLAIN, draws=draws, out=out, **args)


def _same_dataset(x, y) -> None:
    assert set(x.data_vars) == set(y.data_vars)
    for name in x.data_vars:
        assert x[name].dims == y[name].dims and x[name].dtype == y[name].dtype, name
        assert x[name].attrs == y[name].attrs, name
        np.testing.assert_array_equal(x[name].values, y[name].values, err_msg=name)
    changing = {"created"} | {k for k in x.attrs if k.startswith("wall_seconds")}
    assert set(x.attrs) == set(y.attrs)
    assert {k: x.attrs[k] for k in set(x.attrs) - changing} == {
        k: y.attrs[k] for k in set(y.attrs) - changing}


@pytest.mark.parametrize("sampler, options", [("pt", {"rungs": 3, "keep_all_rungs": True})])
def test_the_file_holds_the_in_memory_run(tmp_path, sampler, options):
    """Same groups, variables, dims, dtypes, meanings and run attributes as ``sample`` gives
    (PT keeping every rung: a position dim, per-rung statistics and integer ones)."""
    model = get_model("mvn_mean")
    in_memory = sample(model, get_sampler(sampler, model, **options), key=1, chains=2,
                       draws=30, warmup=10, progress=False)
    path = run_and_save("mvn_mean", sampler, {"model": {}, "sampler": options}, chains=2,
                        draws=30, warmup=10, seed=1, thin=1, chain_method="vmap",
                        out=tmp_path / "r.nc", progress=False)
    written = az.from_netcdf(path)
    for group in ("posterior", "sample_stats"):
        _same_dataset(in_memory[group], written[group])


class Logged(io.RawIOBase):
    """A file whose writes are logged as (offset, bytes): what reached the disk, in order."""

    def __init__(self, path: Path, log: list[tuple[int, bytes]]):
        self.handle = open(path, "r+b")  # noqa: SIM115 - closed in close()
        self.log = log

    def readable(self) -> bool:
        return True

    def writable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def seek(self, offset: int, whence: int = 0) -> int:
        return self.handle.seek(offset, whence)

    def tell(self) -> int:
        return self.handle.tell()

    def readinto(self, buffer) -> int:
        return self.handle.readinto(buffer)

    def write(self, data) -> int:
        data = bytes(data)
        self.log.append((self.handle.tell(), data))
        return self.handle.write(data)

    def truncate(self, size=None) -> int:
        return self.handle.truncate(size)

    def flush(self) -> None:
        self.handle.flush()

    def close(self) -> None:
        self.handle.close()
        super().close()


def _image(skeleton: bytes, log: list[tuple[int, bytes]], cut: int) -> bytes:
    """The file as it was when the writer had written ``cut`` bytes (the last write cut short):
    a process killed then leaves exactly this on disk."""
    image = bytearray(skeleton)
    left = cut
    for offset, data in log:
        if left <= 0:
            break
        piece = data[:left]
        if offset + len(piece) > len(image):
            image.extend(b"\0" * (offset + len(piece) - len(image)))
        image[offset:offset + len(piece)] = piece
        left -= len(piece)
    return bytes(image)


def test_a_writer_cut_off_at_any_byte_leaves_the_last_checkpoint(tmp_path, monkeypatch):
    """Every write the run makes after its file exists is logged. The file as a kill would
    leave it — at every write's start, middle and end — must hold no checkpoint yet, or exactly
    one checkpoint the run committed (its counts, costs and state all of that one), with the
    draws it covers intact; resumed from three such files, the run ends bit for bit as the
    uninterrupted one."""
    whole = _run(tmp_path / "whole.nc", checkpoint_every=10)
    log: list[tuple[int, bytes]] = []
    skeletons: list[bytes] = []
    commits: list[tuple[np.ndarray, ...]] = []

    def logged(path: Path, mode: str):
        if not skeletons:
            skeletons.append(Path(path).read_bytes())
        return h5py.File(Logged(Path(path), log), mode)

    commit = runfile.RunFile.commit

    def recorded(self, done, warmed, warm_cost, seconds, packed):
        commits.append((np.array(done), np.array(warmed, bool), np.array(warm_cost),
                        *(np.array(packed[k]) for k in sorted(packed))))
        commit(self, done, warmed, warm_cost, seconds, packed)

    monkeypatch.setattr(runfile, "_open", logged)
    monkeypatch.setattr(runfile.RunFile, "commit", recorded)
    logged_run = _run(tmp_path / "r.nc", checkpoint_every=10)
    monkeypatch.undo()
    assert_same_run(logged_run, whole)
    with h5py.File(whole) as f:
        theta = f["posterior"]["theta"][:]
    cuts, position = set(), 0
    for _, data in log:
        cuts |= {position, position + len(data) // 2, position + len(data)}
        position += len(data)
    seen, resumed = set(), 0
    for i, cut in enumerate(sorted(cuts)):
        image = tmp_path / f"cut-{i}.nc"
        image.write_bytes(_image(skeletons[0], log, cut))
        with h5py.File(image) as f:
            slot = runfile.read_slot(f)
            if slot is not None:
                done = int(slot.done.min())
                np.testing.assert_array_equal(f["posterior"]["theta"][:, :done],
                                              theta[:, :done])
        if slot is not None:
            state = (slot.done, slot.warmed, slot.warm_cost,
                     *(slot.packed[k] for k in sorted(slot.packed)))
            which = [j for j, c in enumerate(commits)
                     if all(np.array_equal(a, b) for a, b in zip(c, state, strict=True))]
            assert which, f"cut at byte {cut}: the committed slot is no checkpoint of the run"
            if which[0] not in seen and which[0] in (1, 3) or (
                    cut == position and not runfile.is_finished(image)):
                resume_run(image)
                assert_same_run(image, whole)
                resumed += 1
            seen.add(which[0])
        image.unlink()
    assert len(commits) == 5 and seen == set(range(5))  # after warmup, at 10, 20, 30, the end
    assert resumed >= 2


def test_resume_before_the_first_checkpoint_says_so(tmp_path, capsys):
    """A run file made but killed before its first commit: one line, exit 2."""
    out = _run(tmp_path / "r.nc")
    with h5py.File(out, "r+") as f:
        f["checkpoint"]["commit"][()] = -1
    code, _, err = run_cli(["resume", out, "--no-progress"], capsys)
    assert code == 2 and err.count("\n") == 1 and "nothing to resume" in err


def test_summary_reads_the_committed_draws_of_a_run_being_written(tmp_path, capsys):
    """A run stopped after 20 of 40 draws (as one still running is): ``summary`` says so and
    summarises the committed 20, the same table as a finished run of 20 draws; ``report``
    flags it."""
    whole = _run(tmp_path / "whole.nc", draws=20)
    out = _run(tmp_path / "r.nc", draws=40, checkpoint_every=10)
    with h5py.File(out, "r+") as f:  # the state after the second sampling checkpoint
        group = f["checkpoint"]
        slot = int(group["commit"][()])
        group["done"][slot] = [20, 20]
        for name in [k for k in f["posterior"].attrs if k.startswith(("wall_", "cost_"))]:
            del f["posterior"].attrs[name]
    assert int(committed_slot(out).done.min()) == 20
    code, partial, _ = run_cli(["summary", out], capsys)
    assert code == 0 and "20 of 40 draws per chain" in partial
    code, finished, _ = run_cli(["summary", whole], capsys)
    table = [line for line in finished.splitlines() if "theta" in line]
    assert table and all(line in partial for line in table)
    code, _, _ = run_cli(["report", out, "--out", tmp_path / "r.html"], capsys)
    assert code == 0 and "Unfinished run: 20 of 40 draws" in (tmp_path / "r.html").read_text()


CHILD = textwrap.dedent('''
    import ctypes, resource, sys
    import tempering.run.driver as driver
    from tempering import run_and_save
    from tempering.run.sink import FileSink
    driver.CHUNK_BYTES = 2**19  # 512 KiB of positions a chunk: 163 draws of 4 x 100 doubles
    resident, put = [], FileSink.put
    trim = ctypes.CDLL("libc.so.6").malloc_trim
    def measured(self, *args):
        put(self, *args)
        trim(0)  # glibc keeps freed chunks' pages: resident, but not the run's
        with open("/proc/self/statm") as f:
            resident.append(int(f.read().split()[1]) * resource.getpagesize())
    FileSink.put = measured
    run_and_save("mvn_mean", "rwm", {"model": {"dim": 100, "n": 20, "precision": "float64"},
                  "sampler": {}}, chains=4,
                 draws=int(sys.argv[2]), warmup=20, seed=0, thin=1, chain_method="vmap",
                 out=sys.argv[1], progress=False)
    print(resident)
''')


def test_resident_memory_holds_a_chunk_not_the_run(tmp_path):
    """40 chunks of 512 KiB of positions (21 MB of draws in all): resident memory does not grow
    with the draws. Kept draws would add a chunk per chunk (18 MiB in all); the least-squares
    slope of resident memory over chunks 4 … 40 is under a quarter of a chunk per chunk, and the
    file holds every draw. Resident memory is read after ``malloc_trim`` (glibc keeps freed
    chunks' pages otherwise). It still moves in steps of a chunk's buffer, up and down, as the
    allocator keeps or returns one: 0.1–0.2 MB on a quiet machine, steps of 0.5–1.1 MB that
    stay for tens of chunks on a busy one (2026-11-27, 120 chunks: a plateau, no trend), and
    1.65 MB in CI, where a bound on the peak's rise over the fourth chunk (three chunks) failed.
    A step of three chunks halfway moves the slope by 0.12 of a chunk per chunk."""
    out = tmp_path / "big.nc"
    done = subprocess.run([sys.executable, "-c", CHILD, str(out), str(40 * 163)],
                          capture_output=True, text=True, timeout=300, check=True)
    resident = np.array(ast.literal_eval(done.stdout.strip().splitlines()[-1]), dtype=float)
    assert len(resident) == 40
    later = resident[3:]
    slope = np.polyfit(np.arange(len(later)), later, 1)[0]
    assert slope < 2**19 / 4, (slope / 2**19, resident[3], resident.max())
    with h5py.File(out) as f:
        assert int(runfile.read_slot(f).done.min()) == 40 * 163
        assert not np.any(f["posterior"]["theta"][:, -1] == 0)


def test_a_checkpoint_round_trips_every_leaf_dtype(tmp_path):
    """Boolean, integer and float leaves (PT's adaptive state has all three) come back with
    their dtypes and values (NetCDF has no booleans: they are packed as int8)."""
    import json

    import jax

    from tempering.run.checkpoint import Ledger, commit, packed_ledger, read_ledger

    ledger = Ledger(done=np.array([3, 0]), warmed=np.array([True, False]),
                    state={"b": np.array([[True, False], [False, True]]),
                           "i": np.array([[7], [-2]], np.int32), "f": np.ones((2, 3))},
                    params={"s": np.array([0.5, 0.25])}, warm_cost=np.array([1.0, 2.0]))
    packed, layouts = packed_ledger(ledger)
    layout = runfile.Layout(chains=2, draws=4, columns={}, packed={
        name: (("chain", f"{name}_width"), value.shape, value.dtype.str)
        for name, value in packed.items()})
    path = tmp_path / "r.nc"
    runfile.create(path, layout, {}, {k: json.dumps(v) for k, v in layouts.items()})
    written = runfile.RunFile(path)
    commit(written, ledger)
    written.close()
    spec = lambda tree: jax.tree.map(lambda a: jax.ShapeDtypeStruct(a.shape, a.dtype), tree)
    back = read_ledger(path, spec(ledger.state), spec(ledger.params))
    for name, value in {**ledger.state, **ledger.params}.items():
        got = {**back.state, **back.params}[name]
        assert got.dtype == value.dtype and np.array_equal(got, value), name
    np.testing.assert_array_equal(back.done, ledger.done)
