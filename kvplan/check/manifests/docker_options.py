"""The options `docker run` / `docker create` and `podman run` take, read from each CLI's source
(task h80shell), so that the word after an option that takes a value is never taken for the image
(`--detach-keys ctrl-x vllm/vllm-openai:v0.8.5` read `ctrl-x` as the image, and the server after
it was not read: docker's --detach-keys, --cpu-rt-runtime, --memory-swappiness, --volume-driver and
14 more were missing from kvplan's list of docker 27's `docker run --help`).

docker: docker/cli at commit 28f756087eea5fa301f3fbf12b01ae62f91521c2 (2026-08-20; the three
files last changed at 0133bfa4fd0cf21cf2dbd8f350c0fbbde0a15475): cli/command/container/opts.go
addFlags (the options `docker run` and `docker create` share), run.go NewRunCommand (--detach,
--sig-proxy, --name, --detach-keys, --pull, --quiet, --use-api-socket, --platform,
--disable-content-trust, --help) and create.go NewCreateCommand (the same but --detach,
--sig-proxy and --detach-keys). An option defined with a Bool* call takes no value (pflag: `--rm`,
or `--rm=false` in one word); every other one takes the next word, or its value after `=`.

podman: containers/podman at commit c6580b4a5219c9efb9ab79a540637d8a58b736f8 (2026-05-19):
cmd/podman/common/create.go DefineCreateFlags in entities.CreateMode (the infra-only block left
out), cmd/podman/common/netflags.go DefineNetFlags, cmd/podman/containers/run.go runFlags, and the
root command's persistent options, which `podman run` takes too (cmd/podman/root.go rootFlags:
--runtime, --root, --storage-driver, --log-level ...); `--tls-verify` is an optional bool
(commonFlag.OptionalBoolFlag: no word after it). podman's spellings of the same option
(cmd/podman/utils/alias.go AliasFlags: --net, --dns-opt, --healthcheck-command ...) are read as
the option they name.

Both CLIs join short options as pflag does: `-it`, `-dit`, and a value option last in the group
takes the next word (`-itv /data:/data`) or the rest of the word (`-p8000:8000`, `-eKEY=v`).
nvidia-docker passes its arguments to docker: docker's table.
"""

from __future__ import annotations


def _names(text: str) -> frozenset[str]:
    return frozenset("--" + name for name in text.split())


DOCKER_VALUE = _names("""
    add-host annotation attach blkio-weight blkio-weight-device cap-add cap-drop
    cgroup-parent cgroupns cidfile cpu-count cpu-percent cpu-period cpu-quota cpu-rt-period
    cpu-rt-runtime cpu-shares cpus cpuset-cpus cpuset-mems detach-keys device
    device-cgroup-rule device-read-bps device-read-iops device-write-bps device-write-iops
    dns dns-opt dns-option dns-search domainname entrypoint env env-file expose gpus
    group-add health-cmd health-interval health-retries health-start-interval
    health-start-period health-timeout hostname io-maxbandwidth io-maxiops ip ip6 ipc
    isolation kernel-memory label label-file link link-local-ip log-driver log-opt
    mac-address memory memory-reservation memory-swap memory-swappiness mount name net
    net-alias network network-alias oom-score-adj pid pids-limit platform publish pull
    restart runtime security-opt shm-size stop-signal stop-timeout storage-opt sysctl tmpfs
    ulimit user userns uts volume volume-driver volumes-from workdir
""")  # 92
DOCKER_FLAG = _names("""
    detach disable-content-trust help init interactive no-healthcheck oom-kill-disable
    privileged publish-all quiet read-only rm sig-proxy tty use-api-socket
""")  # 15
PODMAN_VALUE = _names("""
    add-host annotation arch attach authfile blkio-weight blkio-weight-device cap-add
    cap-drop cdi-spec-dir cert-dir cgroup-conf cgroup-manager cgroup-parent cgroupns cgroups
    chrootdirs cidfile conmon conmon-pidfile cpu-period cpu-profile cpu-quota cpu-rt-period
    cpu-rt-runtime cpu-shares cpus cpuset-cpus cpuset-mems creds decryption-key
    default-mounts-file detach-keys device device-cgroup-rule device-read-bps
    device-read-iops device-write-bps device-write-iops dns dns-option dns-search entrypoint
    env env-file env-merge events-backend expose gidmap gpus group-add group-entry
    health-cmd health-interval health-log-destination health-max-log-count
    health-max-log-size health-on-failure health-retries health-start-period
    health-startup-cmd health-startup-interval health-startup-retries health-startup-success
    health-startup-timeout health-timeout hooks-dir hostname hosts-file hostuser
    image-volume imagestore init-path ip ip6 ipc kernel-memory label label-file log-driver
    log-level log-opt mac-address max-workers memory memory-profile memory-reservation
    memory-swap memory-swappiness mount name namespace network network-alias network-backend
    network-config-dir oom-score-adj os passwd-entry personality pid pidfile pids-limit
    platform pod pod-id-file preserve-fd preserve-fds publish pull pull-option rdt-class
    registries-conf requires restart retry retry-delay root runroot runtime runtime-flag
    sdnotify seccomp-policy secret security-opt shm-size shm-size-systemd signature-policy
    stop-signal stop-timeout storage-driver storage-opt subgidname subuidname sysctl systemd
    timeout tmpdir tmpfs tz uidmap ulimit umask unsetenv user userns uts variant volume
    volumepath volumes-from workdir
""")  # 152
PODMAN_FLAG = _names("""
    detach disable-content-trust env-host help http-proxy init interactive no-healthcheck
    no-hostname no-hosts oom-kill-disable passwd privileged publish-all quiet read-only
    read-only-tmpfs replace rm rmi rootfs sig-proxy syslog tls-verify trace transient-store
    tty unsetenv-all
""")  # 28

# the short letters (pflag's VarP/BoolVarP shorthands), the same in both CLIs
SHORT_VALUE = {"a": "--attach", "c": "--cpu-shares", "e": "--env", "h": "--hostname",
               "l": "--label", "m": "--memory", "p": "--publish", "u": "--user",
               "v": "--volume", "w": "--workdir"}
SHORT_FLAG = {"d": "--detach", "i": "--interactive", "P": "--publish-all", "q": "--quiet",
              "t": "--tty"}
PODMAN_ALIASES = {"--net": "--network", "--dns-opt": "--dns-option",
                  "--healthcheck-command": "--health-cmd",
                  "--healthcheck-interval": "--health-interval",
                  "--healthcheck-retries": "--health-retries",
                  "--healthcheck-start-period": "--health-start-period",
                  "--healthcheck-timeout": "--health-timeout"}


def tables(program: str) -> tuple[frozenset[str], frozenset[str]]:
    """(the options that take a value, those that take none) of `program`'s `run`."""
    if program == "podman":
        return PODMAN_VALUE | frozenset(PODMAN_ALIASES), PODMAN_FLAG
    return DOCKER_VALUE, DOCKER_FLAG


def split_option(word: str, program: str) -> tuple[list[str], str | None, bool]:
    """The long names one option word gives (`-it`: --interactive and --tty), the value written
    in the word itself (after `=`, or after a short value letter), and whether the last name takes
    the next word as its value. A name neither table holds is returned as written."""
    value_options, _ = tables(program)
    if word.startswith("--"):
        name, eq, inline = word.partition("=")
        name = PODMAN_ALIASES.get(name, name) if program == "podman" else name
        return [name], inline if eq else None, name in value_options and not eq
    names: list[str] = []
    letters = word[1:]
    for k, letter in enumerate(letters):
        if letter in SHORT_FLAG:
            names.append(SHORT_FLAG[letter])
            continue
        if letter in SHORT_VALUE:
            rest = letters[k + 1:]
            names.append(SHORT_VALUE[letter])
            if rest:
                return names, rest[1:] if rest.startswith("=") else rest, False
            return names, None, True
        return [word], None, False  # a letter neither CLI has: the word as written
    return names, None, False
