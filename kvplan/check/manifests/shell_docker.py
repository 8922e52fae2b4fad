"""A `docker run` line of a shell script, read as Docker reads it (docs.docker.com/reference/
cli/docker/container/run/): options up to the image, then the arguments the image's
entrypoint receives.

Read: the image (its tag names the engine release, read by the same code as every manifest's
image: kvplan.check.manifests.workload), `--entrypoint`, the arguments after the image (under
`vllm/vllm-openai`, whose entrypoint is `vllm serve`, or the OpenAI server module before 0.11.1:
kvplan.check.manifests.image_entry, they are the server's options), `-e` /
`--env` (the container's environment), `--gpus` (`all`, `N`, `device=0,1`, `count=N`),
`--runtime nvidia` with `-e NVIDIA_VISIBLE_DEVICES`, `-e CUDA_VISIBLE_DEVICES` inside the
container, `--device /dev/kfd` (ROCm: every AMD GPU), a CDI `--device nvidia.com/gpu=all` (or
`=0`: one GPU a name); `-v` / `--volume` / `--mount` and
`-w` for the option files the server names (kvplan.check.manifests.script_files). A command that
is a shell's `-c` script starting a server is read on any image (a base image that pip-installs
the engine, task h72mix: `shell_starts`), as a Kubernetes container's `sh -c` is. Passed over on
purpose, as they do not move GPU memory: `-p`, `--shm-size`, `--ipc`, `--name`, `--network`,
`--restart`, `--ulimit`, `--rm`, `-d`, `-it` and Docker's other options, each with its value
when it takes one (kvplan.check.manifests.docker_options: docker's and podman's tables, read
from their CLI source); `--env-file` is noted (the variables it sets are not read), and so is an
option docker run (podman run) does not have.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from kvplan.check.argv import server_start
from kvplan.check.manifests.docker_options import split_option, tables
from kvplan.check.manifests.image_entry import image_entry, runs_vllm_image
from kvplan.check.manifests.script_files import mount_of
from kvplan.deploy import Problem

DOCKERS = {"docker", "podman", "nvidia-docker"}
_MODEL_OPTIONS = ("--model", "--model-path", "--model_path")
_CDI_GPU = re.compile(r"[a-z0-9][a-z0-9.-]*\.[a-z]+/gpu=[^\s=]+")  # nvidia.com/gpu=all
_PROGRAMS = {"vllm", "python", "python3", "sh", "bash", "trtllm-serve", "sglang"}


@dataclass
class DockerRun:
    """What one `docker run` hands the engine."""

    image: str = ""
    command: list[str] = field(default_factory=list)  # what the container runs
    lines: list[int] = field(default_factory=list)  # the line of each command word
    env: dict[str, str] = field(default_factory=dict)
    count: Any = 0  # GPUs handed to the container ("all": every GPU of the host)
    said: str = ""  # how the line hands them over
    resource: str = "nvidia.com/gpu"
    engine: bool = False  # the container starts a server kvplan reads (or is refused naming it)
    mounts: list[tuple[str, str, str]] = field(default_factory=list)  # -v / --mount: (type,
    # source, target), for the option files the server names (kvplan.check.manifests.script_files)
    workdir: str = ""  # -w / --workdir
    implied: bool = False  # the command is the image's entrypoint, not written in the file
    notes: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


def is_docker_run(words: list[str]) -> int | None:
    """The index of `docker` in `[sudo] docker [container] run ...`, or None."""
    for i, w in enumerate(words[:-1]):
        if w.rsplit("/", 1)[-1] in DOCKERS:
            rest = words[i + 1 : i + 3]
            if rest[:1] == ["run"] or rest == ["container", "run"]:
                return i
            return None
    return None


# docker/cli opts/gpus.go parseCount (commit 29e34aba): "all" is -1, else strconv.Atoi, a Go int
# of 64 bits; a word it cannot read stops `docker run` (task h90hostile: `--gpus=10^20` passed)
_GO_INT = 2**63


class GpusRefused(ValueError):
    """A --gpus count docker refuses before the container starts."""


def _count(text: str) -> Any:
    """parseCount: "all" and -1 (what "all" parses to) are every GPU, an integer is itself."""
    if text in ("all", "-1"):
        return "all"
    if re.fullmatch(r"[+-]?\d+", text) and -_GO_INT <= int(text) < _GO_INT:
        if int(text) < -1:
            raise GpusRefused(f"a count of {int(text):,}: docker reads it, and what the daemon "
                              "hands over for a count under -1 (-1 is every GPU, as `all`) "
                              "kvplan does not know; give --gpus N or --gpus all")
        return int(text)
    why = "value out of range" if re.fullmatch(r"[+-]?\d+", text) else "invalid syntax"
    raise GpusRefused(f"docker refuses it (invalid count ({text[:40]}): value must be either "
                      f"\"all\" or an integer: {why}; docker/cli opts/gpus.go parseCount, its "
                      "Go int is 64 bits); give --gpus N or --gpus all")


def _gpus(value: str) -> Any:
    """`--gpus` as a count, or "all": `all`, `2`, `-1` (all), `device=0,1`, `"device=0,1"`,
    `count=2`; GpusRefused for a count docker refuses."""
    v = value.strip().strip("'")
    if v.startswith('"') and v.endswith('"'):
        v = v[1:-1]
    if "=" not in v and "," not in v:
        return _count(v)
    if "device=" in v:
        devices = v.split("device=", 1)[1].strip('"').split(",")
        return len([d for d in devices if d.strip() and "=" not in d])
    m = re.search(r"count=([^,]*)", v)
    if m:
        return _count(m[1])
    # GpuOpts.Set: "if _, ok := seen["count"]; !ok && req.DeviceIDs == nil { req.Count = 1 }"
    return 1  # `driver=nvidia`, `capabilities=...` alone: one GPU (before: none, task h100readers)


def _appended(program: str, entry: tuple[str, ...]) -> str:
    return (f"the vllm/vllm-openai image's entrypoint already starts the server "
            f"(`{' '.join(entry)}`), "
            f"and docker run appends the arguments after the image to it: `{program} ...` "
            "reaches vLLM as arguments and the container stops with 'unrecognized arguments'; "
            "pass only the model and options after the image, or set --entrypoint")


def _options_only(image: str, args: list[str]) -> str:
    return (f"passes server options ({args[0]} ...) to image {image!r}, whose entrypoint kvplan "
            "cannot see (only vllm/vllm-openai's is read: `vllm serve`, the OpenAI server "
            "module before 0.11.1); name the server after the image (`vllm serve ...`, "
            "`python3 -m sglang.launch_server ...`, `trtllm-serve ...`) with `--entrypoint` if "
            "the image needs it, or describe the deployment in a kvplan/v1 file")


def read_docker_run(words: list[str], lines: list[int], script_env: dict[str, str]) -> DockerRun:
    """`words` start at `docker`; `lines` are their physical lines."""
    from kvplan.check.manifests.engine_mention import mentions_engine

    run = DockerRun()
    i = 2 if words[1] == "run" else 3
    entrypoint: str | None = None
    runtime = ""
    devices: list[str] = []
    cdi: list[str] = []  # `--device nvidia.com/gpu=all`: CDI device names
    program = "podman" if words[0].rsplit("/", 1)[-1] == "podman" else "docker"
    known = set().union(*tables(program))
    cli = program  # `program` is the container's command below
    while i < len(words):
        w = words[i]
        if not w.startswith("-") or w == "-":
            break
        names, inline, takes = split_option(w, program)
        name = names[-1]
        if takes:
            value = words[i + 1] if i + 1 < len(words) else ""
            i += 2
        else:
            value = inline or ""
            i += 1
        if name not in known:
            run.notes.append(f"{program} run option {name}: {program} run has no such option "
                             f"({program} refuses it: 'unknown flag'), "
                             + ("passed over" if inline is not None else "read as taking no "
                                "value, so a word after it is taken for the image"))
        if name == "--env":
            key, has, val = value.partition("=")
            if has:
                run.env[key] = val
            elif key in script_env:
                run.env[key] = script_env[key]
        elif name == "--env-file":
            run.notes.append(f"--env-file {value}: not read (variables set only there are not "
                             "checked)")
        elif name == "--gpus":
            try:
                run.count, run.said = _gpus(value), f"--gpus {value}"
            except GpusRefused as err:
                run.problems.append(Problem("--gpus", str(err), lines[i - 1]))
        elif name == "--entrypoint":
            entrypoint = value
        elif name in ("--volume", "--mount"):
            mount = mount_of(name, value)
            if mount is not None:
                run.mounts.append(mount)
        elif name == "--workdir":
            run.workdir = value
        elif name == "--runtime":
            runtime = value
        elif name == "--device" and _CDI_GPU.fullmatch(value):
            cdi.append(value)
        elif name == "--device":
            devices.append(value.split(":", 1)[0].rstrip("/"))
    if i >= len(words):
        return run
    run.image = words[i]
    args, arg_lines = words[i + 1 :], lines[i + 1 :]
    image_line = lines[i]
    if entrypoint is not None:
        run.command = [*entrypoint.split(), *args]
        run.lines = [image_line] * len(entrypoint.split()) + arg_lines
    elif runs_vllm_image(run.image):
        entry = image_entry(run.image).words  # by the release the tag names (task h61misc)
        program = args[0].rsplit("/", 1)[-1] if args else ""
        if program in _PROGRAMS:
            run.problems.append(Problem("command", _appended(program, entry), arg_lines[0]))
        run.command, run.lines = [*entry, *args], [image_line] * len(entry) + arg_lines
        run.implied = True
    else:
        run.command, run.lines = args, arg_lines
    modelled = any(a.split("=", 1)[0] in _MODEL_OPTIONS for a in args)
    starts = (server_start(run.command) is not None or runs_vllm_image(run.image)
              or shell_starts(run.command))
    if not starts and args and args[0].startswith("--") and modelled and entrypoint is None:
        run.problems.append(Problem("command", _options_only(run.image, args), arg_lines[0]))
        starts = True
    run.engine = starts or (entrypoint is None and not args and
                            mentions_engine(run.image) is not None)
    _cdi_count(run, cdi)
    _gpu_count(run, runtime, devices, lines[0], cli)
    return run


def shell_starts(command: list[str]) -> bool:
    """Whether the container's command is a shell's -c script with a server start kvplan reads in
    it (`python:3.11 bash -c "pip install vllm==0.8.5 && vllm serve ..."`, task h72mix): read as
    a Kubernetes container's `sh -c` is (kvplan.check.manifests.workload.container_words), its
    pip pin the release (kvplan.check.manifests.container_pins)."""
    from kvplan.check.argv import SHELLS, split_script
    from kvplan.check.manifests.workload import SHELL_C
    from kvplan.check.set_args import SetArgsTooLarge

    if len(command) < 3 or command[0].rsplit("/", 1)[-1] not in SHELLS:
        return False
    at = next((i for i, w in enumerate(command[1:-1], 1) if SHELL_C.fullmatch(w)), None)
    try:
        return at is not None and any(server_start(cmd) is not None
                                      for cmd in split_script(command[at + 1]))
    except SetArgsTooLarge:  # read as a server start: the container's reader names the limit
        return True


def _cdi_count(run: DockerRun, names: list[str]) -> None:
    """CDI GPUs, `--device VENDOR/gpu=NAME` (docker 25+ with CDI, podman): `all` is every GPU of
    the machine, as `--gpus all`; each other name (an index, a UUID, `0,1`) one GPU. The names
    `nvidia-ctk cdi generate` writes: `nvidia.com/gpu=<index>`, `=<UUID>`, `=all`
    (docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/cdi-support.html)."""
    if run.count or not names:
        return
    run.count, run.resource = cdi_gpus(names)
    run.said = " ".join(f"--device {n}" for n in names)


def cdi_gpus(names: list[str]) -> tuple[Any, str]:
    """(the GPU count, 'all' for every GPU, and the resource) of CDI device names
    `VENDOR/gpu=NAME`; (0, '') when none of `names` is one. Shared by `docker run --device` and
    a compose service's `devices:` (the Compose Specification's 05-services.md, devices: "can
    also rely on the CDI syntax", compose-spec/compose-spec 170098b, lines 491-496)."""
    gpus = [n.strip() for n in names if _CDI_GPU.fullmatch(n.strip())]
    if not gpus:
        return 0, ""
    kinds = {n.partition("=")[0] for n in gpus}
    picked = {d.strip() for n in gpus for d in n.partition("=")[2].split(",") if d.strip()}
    return ("all" if "all" in picked else len(picked)), sorted(kinds)[0]


def _gpu_count(run: DockerRun, runtime: str, devices: list[str], line: int,
               program: str = "docker") -> None:
    """The GPUs the container gets: --gpus, else the nvidia runtime's NVIDIA_VISIBLE_DEVICES,
    else ROCm's /dev/kfd; narrowed by CUDA_VISIBLE_DEVICES inside the container."""
    if not run.count and {"/dev/kfd", "/dev/dri"} <= set(devices):
        run.count, run.said, run.resource = "all", "--device /dev/kfd --device /dev/dri", \
            "amd.com/gpu"
    if not run.count and runtime == "nvidia":
        value = run.env.get("NVIDIA_VISIBLE_DEVICES", "").strip()
        if value.lower() == "all":
            run.count, run.said = "all", "--runtime nvidia -e NVIDIA_VISIBLE_DEVICES=all"
        elif value and value.lower() not in ("none", "void"):
            run.count = len([d for d in value.split(",") if d.strip()])
            run.said = f"--runtime nvidia -e NVIDIA_VISIBLE_DEVICES={value}"
    visible = run.env.get("CUDA_VISIBLE_DEVICES", "").strip()
    if run.count and visible and "$" not in visible:
        n = len([d for d in visible.split(",") if d.strip()])
        if run.count == "all" or n < int(run.count):
            run.count, run.said = n, f"{run.said}, CUDA_VISIBLE_DEVICES={visible} in the container"
    if not run.count and run.engine and run.said.startswith("--gpus"):  # `--gpus 0`: present
        run.problems.append(Problem("--gpus", f"{run.said}: a request for no GPU, so the "
                                    f"{program} run hands the container none ("
                                    + ("podman's --gpus read as docker's: " if program != "docker"
                                       else "") + "docker/cli opts/gpus.go "
                                    "parseCount reads the count 0; the daemon then sets "
                                    "NVIDIA_VISIBLE_DEVICES=void, moby daemon/nvidia_linux.go "
                                    "setNvidiaGPUs); give --gpus N or --gpus all (GPU 0 alone is "
                                    "--gpus device=0)", line))
    elif not run.count and run.engine:
        run.problems.append(Problem("--gpus", f"the {program} run hands the container no GPU (no "
                                    "--gpus, no CDI --device nvidia.com/gpu=..., nor --runtime "
                                    "nvidia with NVIDIA_VISIBLE_DEVICES); add --gpus N or --gpus "
                                    "all", line))


def docker_on(site: Any, gpu: str, count: int, nodes: int, said: str) -> None:
    """A `docker run` site of a launcher's task (SkyPilot `run`, dstack `commands`) on one
    candidate GPU: the GPU is the candidate's (`said` names where the file gives it) and
    `--gpus all` hands over the node's `count` (task h56review: the GPU was left unnamed and
    every catalog GPU listed)."""
    limits = site.pod["containers"][0].get("resources", {}).get("limits", {})
    for key, value in limits.items():
        if value == "all":
            limits[key] = count
    site.gpu = (gpu, said)
    site.pods_per_engine = nodes
