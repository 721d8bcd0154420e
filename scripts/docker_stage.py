#!/usr/bin/env python3
"""scripts/docker_stage.py - docker/Dockerfile's build stage as data, and
the checks that need no Docker engine (docs/docker.md):

  python3 scripts/docker_stage.py check     (make lint-docker)

- every COPY source of the build context exists and survives .dockerignore;
- the build stage's COPY set holds every file its `make` command reads:
  the files the recipes of `make -n -B` name (sources, scripts, the spec,
  the dashboard's files) and the headers they include, found without
  building; a directory the Makefile compiles but the stage does not copy
  (a new cli/, say) is named with the COPY line it needs;
- the build stage installs every package `scripts/deps.sh build-list`
  names (the compilers and the -dev packages `make hpod` needs).

tests/api/test_docker.py imports this module: it copies exactly the
stage's files into a directory (stage_tree), runs the stage's build there
and serves the dashboard from that binary, and checks the runtime stage's
packages against the libraries the binary links (needed_packages).
Python 3 standard library only.
"""

import fnmatch
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
DOCKERFILE = os.path.join("docker", "Dockerfile")
# Every Dockerfile whose COPY sources come from the build context (the
# lab compose file's PgBouncer image too, docs/DEPLOY.md).
DOCKERFILES = (DOCKERFILE, os.path.join("docker", "pgbouncer.Dockerfile"))
# Packages of debian:*-slim itself (the C library and the GCC runtime),
# which the runtime stage need not install.
BASE_PACKAGES = {"libc6", "libgcc-s1"}


class Stage:
    """One FROM ... [AS name] section: its COPY instructions as
    (sources, destination, from_stage), its RUN commands as (number of
    COPY lines before it, command), WORKDIR, ENV and the packages its
    `apt-get install` lines name."""

    def __init__(self, image, name):
        self.image, self.name = image, name
        self.copies = []
        self.runs = []
        self.workdir = "/"
        self.env = {}
        self.packages = []


def instructions(path):
    """(line number, keyword, argument text) per instruction, continuation
    lines joined and comments dropped."""
    out = []
    cont, start = "", 0
    with open(path) as f:
        for n, line in enumerate(f, 1):
            s = line.rstrip("\n")
            if not cont and (not s.strip() or s.lstrip().startswith("#")):
                continue
            if cont and s.lstrip().startswith("#"):
                continue
            if not cont:
                start = n
            if s.endswith("\\"):
                cont += s[:-1] + " "
                continue
            text = (cont + s).strip()
            cont = ""
            word, _, rest = text.partition(" ")
            out.append((start, word.upper(), rest.strip()))
    return out


def stages(root=ROOT, dockerfile=DOCKERFILE):
    """A Dockerfile's stages in order (docker/Dockerfile by default)."""
    out = []
    for _, word, rest in instructions(os.path.join(root, dockerfile)):
        if word == "FROM":
            m = re.match(r"(\S+)(?:\s+AS\s+(\S+))?", rest, re.I)
            out.append(Stage(m.group(1), m.group(2)))
            continue
        st = out[-1]
        if word == "COPY":
            args = shlex.split(rest)
            frm = None
            opts = [a for a in args if a.startswith("--")]
            for a in opts:
                if a.startswith("--from="):
                    frm = a.split("=", 1)[1]
            paths = [a for a in args if not a.startswith("--")]
            st.copies.append((paths[:-1], paths[-1], frm))
        elif word == "RUN":
            st.runs.append((len(st.copies), rest))
            if "apt-get install" in rest:
                part = rest.split("apt-get install", 1)[1].split("&&")[0]
                st.packages += [w for w in part.split() if not w.startswith("-")]
        elif word == "WORKDIR":
            st.workdir = os.path.join(st.workdir, rest)
        elif word == "ENV":
            for k, v in re.findall(r'(\w+)=("[^"]*"|\S+)', rest):
                st.env[k] = v.strip('"')
    return out


def build_stage(root=ROOT):
    """The stage the last stage copies its binary from (COPY --from=NAME)."""
    all_ = stages(root)
    names = {c[2] for c in all_[-1].copies if c[2]}
    found = [s for s in all_ if s.name in names]
    if len(found) != 1:
        raise ValueError("%s: expected one build stage copied from, found %r"
                         % (DOCKERFILE, sorted(names)))
    return found[0]


def ignore_patterns(root=ROOT):
    pats = []
    with open(os.path.join(root, ".dockerignore")) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                pats.append(line)
    return pats


def ignored(path, pats):
    """The .dockerignore pattern that drops path (repository-relative) from
    the build context, or None. Docker's patterns are close enough to
    fnmatch for ours: a pattern matching a path or one of its parents
    removes it."""
    parts = path.split("/")
    for i in range(1, len(parts) + 1):
        p = "/".join(parts[:i])
        for pat in pats:
            bare = pat[3:] if pat.startswith("**/") else pat
            if fnmatch.fnmatch(p, pat) or fnmatch.fnmatch(parts[i - 1], bare):
                return pat
    return None


def context_sources(root=ROOT):
    """(Dockerfile, source, problem or None) for every COPY source taken
    from the build context, in every stage of every Dockerfile."""
    pats = ignore_patterns(root)
    out = []
    for dockerfile in DOCKERFILES:
        for st in stages(root, dockerfile):
            for srcs, _, frm in st.copies:
                if frm:
                    continue
                for src in srcs:
                    src = src.rstrip("/")
                    if not os.path.exists(os.path.join(root, src)):
                        problem = "no such file in the repository"
                    elif ignored(src, pats):
                        problem = "excluded by .dockerignore (%s)" % ignored(src, pats)
                    else:
                        problem = None
                    out.append((dockerfile, src, problem))
    return out


def staged_files(root=ROOT, stage=None):
    """{path relative to the stage's WORKDIR: repository-relative source}
    for every file the build stage's COPY lines put there (directories
    copied as their contents, .dockerignore applied)."""
    stage = stage or build_stage(root)
    pats = ignore_patterns(root)
    out = {}
    for srcs, dest, frm in stage.copies:
        if frm:
            continue
        into_dir = len(srcs) > 1 or dest.endswith("/") or \
            os.path.isdir(os.path.join(root, srcs[0]))
        dest = os.path.normpath(os.path.join(stage.workdir, dest))
        rel_dest = os.path.relpath(dest, stage.workdir)
        if rel_dest.startswith(".."):
            raise ValueError("COPY to %s: outside WORKDIR %s" % (dest, stage.workdir))
        for src in srcs:
            src = src.rstrip("/")
            full = os.path.join(root, src)
            if os.path.isdir(full):
                for d, dirs, files in os.walk(full):
                    dirs[:] = [x for x in dirs if not ignored(
                        os.path.relpath(os.path.join(d, x), root), pats)]
                    for f in files:
                        rel = os.path.relpath(os.path.join(d, f), root)
                        if not ignored(rel, pats):
                            inner = os.path.relpath(os.path.join(d, f), full)
                            out[os.path.normpath(os.path.join(rel_dest, inner))] = rel
            elif os.path.isfile(full) and not ignored(src, pats):
                name = os.path.join(rel_dest, os.path.basename(src)) \
                    if into_dir or rel_dest in (".", "") else rel_dest
                out[os.path.normpath(name)] = src
    return out


def build_commands(stage):
    """The build stage's RUN commands after its first COPY: its build."""
    return [cmd for ncopies, cmd in stage.runs if ncopies > 0]


def make_argv(stage):
    """The arguments of the `make` of the build stage's build command."""
    for cmd in build_commands(stage):
        for part in cmd.split("&&"):
            words = shlex.split(part)
            if words and words[0] == "make":
                return [w for w in words[1:] if not w.startswith("-j")]
    raise ValueError("%s: the build stage runs no make" % DOCKERFILE)


INCLUDE = re.compile(r'#\s*include\s+"([^"]+)"')


def needed_files(root=ROOT, argv=None):
    """Repository-relative files the build stage's make reads: every file
    the recipes of a dry run (`make -n -B`, into a scratch build tree)
    name, and every header those files include ("...", from the file's
    directory or the top, as -I. does)."""
    argv = argv if argv is not None else make_argv(build_stage(root))
    scratch = tempfile.mkdtemp(prefix="hpod-dry-")
    try:
        r = subprocess.run(["make", "-n", "-B", "O=" + scratch] + argv, cwd=root,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           stdin=subprocess.DEVNULL, timeout=120)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if r.returncode != 0:
        raise ValueError("make -n -B %s: %s" % (" ".join(argv), r.stderr.decode()[-500:]))
    todo = ["Makefile"]
    for w in r.stdout.decode().split():
        if not w.startswith(("/", "-")) and os.path.isfile(os.path.join(root, w)):
            todo.append(os.path.normpath(w))
    seen = set()
    while todo:
        f = todo.pop()
        if f in seen:
            continue
        seen.add(f)
        try:
            with open(os.path.join(root, f), errors="replace") as fh:
                text = fh.read()
        except OSError:
            continue
        for inc in INCLUDE.findall(text):
            for base in (os.path.dirname(f), ""):
                cand = os.path.normpath(os.path.join(base, inc))
                if os.path.isfile(os.path.join(root, cand)):
                    todo.append(cand)
                    break
    return seen


def missing_from_stage(root=ROOT):
    """Lines saying which files the build reads that the build stage does
    not copy (one line per top-level directory), or []."""
    staged = staged_files(root)
    need = needed_files(root)
    lost = sorted(f for f in need if staged.get(f) != f)
    by_top = {}
    for f in lost:
        by_top.setdefault(f.split("/")[0] if "/" in f else f, []).append(f)
    out = []
    for top, files in sorted(by_top.items()):
        if not os.path.isdir(os.path.join(root, top)):
            hint = "COPY %s ./" % top
        elif any(src.startswith(top + "/") for src in staged.values()):
            hint = "; ".join("COPY %s %s/" % (f, os.path.dirname(f)) for f in files)
        else:
            hint = "COPY %s %s/" % (top, top)
        out.append("%s: the build stage's make reads %s%s, which it does not copy "
                   "(add `%s` before its RUN make)"
                   % (DOCKERFILE, files[0], " and %d more" % (len(files) - 1)
                      if len(files) > 1 else "", hint))
    return out


def deps_build_packages(root=ROOT):
    r = subprocess.run(["sh", os.path.join(root, "scripts", "deps.sh"), "build-list"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       stdin=subprocess.DEVNULL, timeout=60, check=True)
    return r.stdout.decode().split()


def missing_packages(root=ROOT):
    """Lines naming the packages scripts/deps.sh installs to build hpod
    that the build stage does not install, or []."""
    have = set(build_stage(root).packages)
    return ["%s: the build stage does not install %s, which scripts/deps.sh "
            "installs to build hpod" % (DOCKERFILE, p)
            for p in deps_build_packages(root) if p not in have]


def stage_tree(dest, root=ROOT):
    """Copies exactly the build stage's files into dest (its WORKDIR)."""
    for rel, src in staged_files(root).items():
        os.makedirs(os.path.join(dest, os.path.dirname(rel)), exist_ok=True)
        shutil.copy2(os.path.join(root, src), os.path.join(dest, rel))


def binary_in_stage(root=ROOT):
    """The WORKDIR-relative path of what the last stage copies from the
    build stage (the hpod binary)."""
    st = build_stage(root)
    for srcs, _, frm in stages(root)[-1].copies:
        if frm == st.name:
            return os.path.relpath(srcs[0], st.workdir)
    raise ValueError("%s: nothing copied from the build stage" % DOCKERFILE)


def needed_packages(binary):
    """{shared library the binary needs directly: its Debian package}."""
    out = subprocess.run(["readelf", "-d", binary], stdout=subprocess.PIPE,
                         check=True).stdout.decode()
    libs = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out)
    ldd = subprocess.run(["ldd", binary], stdout=subprocess.PIPE, check=True).stdout.decode()
    where = dict(re.findall(r"^\s*(\S+) => (\S+)", ldd, re.M))
    pkgs = {}
    for lib in libs:
        path = where.get(lib)
        if not path:
            pkgs[lib] = None
            continue
        pkg = None
        real = os.path.realpath(path)
        for cand in (real, path, re.sub(r"^/usr/lib/", "/lib/", real)):
            r = subprocess.run(["dpkg", "-S", cand], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL)
            if r.returncode == 0:
                pkg = r.stdout.decode().split(":")[0]
                break
        pkgs[lib] = pkg
    return pkgs


def main(argv):
    if argv[1:] != ["check"]:
        print(__doc__.split("\n\n")[0], file=sys.stderr)
        return 2
    bad = []
    for dockerfile, src, problem in context_sources():
        if problem:
            bad.append("%s: COPY %s: %s" % (dockerfile, src, problem))
    bad += missing_from_stage()
    bad += missing_packages()
    for line in bad:
        print(line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
