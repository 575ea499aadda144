//! The admin API's OpenAPI document against the running API, checked by
//! Schemathesis (PyPI): every status code, content type and body it
//! answers must be the ones the document declares, no request may end in a
//! server error, and a request without the token must be refused.
//!
//! Schemathesis is installed from PyPI into `target/tmp/schemathesis-venv`
//! (see `sluice_testkit::python`); if that fails the test fails and says
//! why. It may stop, start and reload the destination: the server is one of
//! its own, reading a private MariaDB.

use std::path::Path;
use std::process::Command;

use sluice_server::Server;
use sluice_testkit::{find_free_port, MariaDb, MariaDbConfig};

/// The Schemathesis release the document is checked with.
const SCHEMATHESIS: &str = "schemathesis==4.32.5";

const TOKEN: &str = "openapi-check-token";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn schemathesis_finds_the_api_as_its_document_says() {
    let venv = Path::new(env!("CARGO_TARGET_TMPDIR")).join("schemathesis-venv");
    let python = sluice_testkit::python::python_venv(&venv, &[SCHEMATHESIS], "import schemathesis")
        .unwrap_or_else(|e| panic!("{e:#}"));
    let st = python.with_file_name("st");

    let db = MariaDb::start(MariaDbConfig::default()).unwrap();
    db.exec("CREATE DATABASE w; CREATE TABLE w.t (id INT PRIMARY KEY); INSERT INTO w.t VALUES (1)")
        .unwrap();
    let conf = tempfile::tempdir().unwrap();
    std::fs::write(
        conf.path().join("canal.properties"),
        format!(
            "canal.ip = 127.0.0.1\ncanal.port = {}\ncanal.metrics.pull.port = 0\n\
             canal.destinations = example\ncanal.auto.scan = false\n\
             canal.file.data.dir = {}\n\
             sluice.admin.http.port = 0\nsluice.admin.http.token = {TOKEN}\n",
            find_free_port().unwrap(),
            conf.path().display()
        ),
    )
    .unwrap();
    std::fs::create_dir_all(conf.path().join("example")).unwrap();
    std::fs::write(
        conf.path().join("example/instance.properties"),
        format!(
            "canal.instance.master.address = 127.0.0.1:{}\ncanal.instance.dbUsername = root\n",
            db.port()
        ),
    )
    .unwrap();
    let server = Server::start(sluice_server::load_config(conf.path()).unwrap())
        .await
        .unwrap();
    let base = format!("http://{}", server.admin_addr().unwrap());

    let reports = tempfile::tempdir().unwrap();
    let mut command = Command::new(&st);
    command
        .arg("run")
        .arg(format!("{base}/openapi.json"))
        .args(["--url", &base])
        .args(["--header", &format!("Authorization: Bearer {TOKEN}")])
        .args([
            "--checks",
            "not_a_server_error,status_code_conformance,content_type_conformance,\
             response_schema_conformance,response_headers_conformance,ignored_auth,\
             negative_data_rejection",
        ])
        .args(["--phases", "examples,coverage,fuzzing"])
        .args(["--max-examples", "15", "--workers", "1", "--seed", "7"])
        .args(["--generation-database", "none", "--no-color"])
        .arg("--report-dir")
        .arg(reports.path())
        // Its own files (a cache folder) go there too, not into the source tree.
        .current_dir(reports.path())
        .env("NO_COLOR", "1");
    let out = tokio::task::spawn_blocking(move || command.output())
        .await
        .unwrap()
        .unwrap_or_else(|e| panic!("running {}: {e}", st.display()));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    eprintln!("{stdout}");
    assert!(
        out.status.success(),
        "schemathesis found the API unlike its document ({}):\n{stdout}\n{stderr}",
        out.status
    );
    // It did test every operation, and found nothing.
    let document: serde_json::Value =
        serde_json::from_str(include_str!("../src/admin-openapi.json")).unwrap();
    let operations: usize = document["paths"]
        .as_object()
        .unwrap()
        .values()
        .map(|p| p.as_object().unwrap().len())
        .sum();
    assert!(
        stdout.contains(&format!("Tested: {operations}")),
        "not every one of the {operations} operations was tested:\n{stdout}"
    );
    let counts = stdout
        .lines()
        .find_map(|l| {
            let (generated, rest) = l.trim().split_once(" generated, ")?;
            let (passed, _) = rest.split_once(" passed")?;
            Some((generated.parse::<u32>().ok()?, passed.parse::<u32>().ok()?))
        })
        .unwrap_or_else(|| panic!("no test case count in:\n{stdout}"));
    assert!(
        counts.0 >= 7 && counts.0 == counts.1,
        "{counts:?}\n{stdout}"
    );
    server.shutdown().await.unwrap();
}
