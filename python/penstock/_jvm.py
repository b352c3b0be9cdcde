"""Starts the JVM inside Python once, with Penstock's jars, as the ``penstock`` script runs it."""

import glob
import os
import subprocess
import threading

_lock = threading.Lock()
_started = False

#: JVM options the ``penstock`` script passes too (docs/embedding.md says what each is for).
OPTIONS = ("--add-modules=jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED",
           "--sun-misc-unsafe-memory-access=allow", "-Xss8m")


def home():
    """The Penstock checkout the package belongs to: ``PENSTOCK_HOME``, the folder recorded when the
    package was installed, or the one this file lies in."""
    if os.environ.get("PENSTOCK_HOME"):
        return os.environ["PENSTOCK_HOME"]
    try:
        from penstock import _home  # written by setup.py at install time
        return _home.HOME
    except ImportError:
        return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _java_major(java):
    try:
        out = subprocess.run([java, "-XshowSettings:properties", "-version"], capture_output=True, text=True, timeout=60).stderr
    except (OSError, subprocess.SubprocessError):
        return None
    for line in out.splitlines():
        line = line.strip()
        if line.startswith("java.specification.version = "):
            try:
                return int(line.split("=")[1].strip().split(".")[0])
            except ValueError:
                return None
    return None


def find_jdk():
    """A JDK 25 or newer, found as ``./penstock`` finds it: ``JAVA_HOME``, then /usr/lib/jvm."""
    candidates = [os.environ.get("JAVA_HOME", ""), "/usr/lib/jvm/temurin-25-jdk-amd64", "/usr/lib/jvm/java-25-openjdk-amd64"]
    candidates += sorted(glob.glob("/usr/lib/jvm/*25*")) + ["/opt/java/openjdk"]
    for c in candidates:
        java = os.path.join(c, "bin", "java")
        if c and os.access(java, os.X_OK):
            major = _java_major(java)
            if major is not None and major >= 25:
                return c
    raise ImportError("penstock needs a JDK 25 or newer and found none (looked at $JAVA_HOME and /usr/lib/jvm/*25*); "
                      "install one and set JAVA_HOME to its folder")


def jars(root):
    """The jars ``./penstock`` builds: the CLI's jar and every library it needs."""
    cli = os.path.join(root, "cli", "target", "penstock-cli.jar")
    lib = sorted(glob.glob(os.path.join(root, "cli", "target", "lib", "*.jar")))
    if not os.path.exists(cli) or not lib:
        raise ImportError("penstock's jars are not built in %s: run '%s/penstock mvn -q -B -DskipTests package' once, "
                          "then import penstock again" % (root, root))
    return [cli] + lib


def _jpype_jar():
    import jpype
    for c in (os.path.join(os.path.dirname(jpype.__file__), "..", "org.jpype.jar"), "/usr/share/java/org.jpype.jar"):
        if os.path.exists(c):
            return os.path.abspath(c)
    return None


def start():
    """Starts the JVM (once per process; later calls return at once). Thread-safe."""
    global _started
    if _started:
        return
    with _lock:
        if _started:
            return
        import jpype
        import jpype.imports  # noqa: F401  (Java packages importable as Python modules)
        if not jpype.isJVMStarted():
            jdk = find_jdk()
            classpath = jars(home())
            support = _jpype_jar()
            if support:
                classpath = [support] + classpath
            libjvm = os.path.join(jdk, "lib", "server", "libjvm.so")
            # the JVM announces the incubating Vector API on stderr as it starts: nothing for a user
            # to act on, so that one line is held back (every other line passes, as ./penstock does)
            import tempfile
            with tempfile.TemporaryFile() as held:
                saved = os.dup(2)
                os.dup2(held.fileno(), 2)
                try:
                    jpype.startJVM(libjvm, *OPTIONS, "-Dpenstock.home=" + home(), classpath=classpath, convertStrings=False)
                finally:
                    os.dup2(saved, 2)
                    os.close(saved)
                held.seek(0)
                for line in held.read().decode("utf-8", "replace").splitlines():
                    if line.strip() != "WARNING: Using incubator modules: jdk.incubator.vector":
                        os.write(2, (line + "\n").encode())
        _started = True
