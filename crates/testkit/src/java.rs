//! Java programs that tests run as peers (Apache Curator participants,
//! readers and writers of Java-serialised data): compiled with the
//! installed JDK against Debian's Curator and ZooKeeper jars. Nothing is
//! skipped: a missing `javac` or jar fails with what to install.

use std::path::Path;
use std::process::Command;

/// Curator's and ZooKeeper's jars from Debian (their manifests bring in
/// ZooKeeper's own dependencies).
pub const CURATOR_JARS: &[&str] = &[
    "/usr/share/java/curator-recipes.jar",
    "/usr/share/java/curator-framework.jar",
    "/usr/share/java/curator-client.jar",
    "/usr/share/java/zookeeper.jar",
    "/usr/share/java/zookeeper-jute.jar",
    "/usr/share/java/guava.jar",
    "/usr/share/java/slf4j-api.jar",
    "/usr/share/java/slf4j-simple.jar",
];

/// Compiles `source` against [`CURATOR_JARS`] into the folder `out`;
/// returns the class path that runs it. Panics, saying what to install,
/// when `javac` or a jar is missing, and with javac's output when the
/// source does not compile.
pub fn compile_with_curator(source: &Path, out: &Path) -> String {
    match Command::new("javac").arg("-version").output() {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => panic!(
            "javac not found: the Java peer needs a JDK (apt-get install -y default-jdk-headless; scripts/test does)"
        ),
        Err(e) => panic!("running javac: {e}"),
        Ok(_) => {}
    }
    for jar in CURATOR_JARS {
        assert!(
            Path::new(jar).is_file(),
            "{jar} not found: apt-get install -y zookeeper libcurator-recipes-java \
             libcurator-framework-java libcurator-client-java (scripts/test does)"
        );
    }
    let classpath = CURATOR_JARS.join(":");
    let javac = Command::new("javac")
        .arg("-d")
        .arg(out)
        .arg("-cp")
        .arg(&classpath)
        .arg(source)
        .output()
        .unwrap_or_else(|e| panic!("running javac: {e}"));
    assert!(
        javac.status.success(),
        "javac {} failed: {}",
        source.display(),
        String::from_utf8_lossy(&javac.stderr)
    );
    format!("{}:{classpath}", out.display())
}
