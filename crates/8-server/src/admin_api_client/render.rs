//! The admin API's answers as text for a person: a table of the
//! destinations, a line per fact of one, a sentence for the others.

use serde_json::Value;

use super::AdminOp;

pub(super) fn answer(op: &AdminOp, answer: &Value) -> String {
    match op {
        AdminOp::List => table(
            answer["destinations"]
                .as_array()
                .map(Vec::as_slice)
                .unwrap_or_default(),
        ),
        AdminOp::Show(_) | AdminOp::Start(_) | AdminOp::Stop(_) | AdminOp::Reload(_) => {
            details(answer)
        }
        AdminOp::Etl { .. } => format!("{}\n", text(&answer["resultMessage"])),
        AdminOp::Snapshot { destination, tables } => format!(
            "{destination} reads a snapshot of {} beside its stream; `sluice admin show {destination}` shows its progress\n",
            tables.join(", ")
        ),
        AdminOp::Release { destination, .. } => {
            let owner = text(&answer["released_by"]);
            match answer["taken_over_by"].as_str() {
                Some(by) => format!(
                    "{owner} released {destination}; {by} runs it now ({} ms after the release)\n",
                    answer["after_ms"]
                ),
                None => format!("asked {owner} to release {destination}\n"),
            }
        }
        AdminOp::ResetCursor {
            destination,
            client_id,
            ..
        } => format!(
            "clientId {client_id} of {destination}: cursor {} (was {}); it gets the transactions from there once {destination} starts\n",
            cursor(&answer["cursor"]),
            cursor(&answer["previous"])
        ),
    }
}

fn text(v: &Value) -> String {
    match v {
        Value::Null => "-".to_string(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A cursor as FILE:OFFSET (and its GTID set), or "none".
fn cursor(v: &Value) -> String {
    let p = &v["postion"];
    match (p["journalName"].as_str(), p["position"].as_u64()) {
        (Some(file), Some(offset)) => match p["gtid"].as_str().filter(|g| !g.is_empty()) {
            Some(gtid) => format!("{file}:{offset} (gtid {gtid})"),
            None => format!("{file}:{offset}"),
        },
        _ => "none".to_string(),
    }
}

fn read_position(d: &Value) -> String {
    let r = &d["source"]["read_position"];
    match (r["journal_name"].as_str(), r["position"].as_u64()) {
        (Some(f), Some(p)) => format!("{f}:{p}"),
        _ => "-".to_string(),
    }
}

fn seconds(v: &Value) -> String {
    v.as_f64()
        .map(|s| format!("{s:.1}s"))
        .unwrap_or_else(|| "-".into())
}

fn state(d: &Value) -> String {
    match d["error"].as_str() {
        Some(e) => format!("{} ({e})", text(&d["state"])),
        None => text(&d["state"]),
    }
}

/// The destinations as a table, one line each.
fn table(destinations: &[Value]) -> String {
    if destinations.is_empty() {
        return "no destinations\n".to_string();
    }
    let mut rows = vec![[
        "DESTINATION".to_string(),
        "STATE".into(),
        "ROLE".into(),
        "SOURCE".into(),
        "READ".into(),
        "LAG".into(),
        "CLIENTS".into(),
    ]];
    for d in destinations {
        let clients = d["clients"]
            .as_array()
            .map(|cs| {
                cs.iter()
                    .map(|c| format!("{}@{}", text(&c["client_id"]), cursor(&c["cursor"])))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| "-".into());
        rows.push([
            text(&d["destination"]),
            state(d),
            text(&d["role"]),
            text(&d["source"]["address"]),
            read_position(d),
            seconds(&d["source"]["lag_seconds"]),
            clients,
        ]);
    }
    let mut widths = [0usize; 7];
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in &rows {
        let line: Vec<String> = row
            .iter()
            .zip(widths)
            .map(|(cell, w)| format!("{cell:<w$}"))
            .collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
    }
    out
}

/// One destination, a line per fact and per client.
fn details(d: &Value) -> String {
    let mut out = format!(
        "destination {}\n  state      {}\n",
        text(&d["destination"]),
        state(d)
    );
    if !d["role"].is_null() {
        out.push_str(&format!("  role       {}\n", text(&d["role"])));
    }
    out.push_str(&format!(
        "  source     {}\n  read       {}\n  lag        {}\n",
        text(&d["source"]["address"]),
        read_position(d),
        seconds(&d["source"]["lag_seconds"])
    ));
    let snapshot = &d["snapshot"];
    if !snapshot.is_null() {
        out.push_str(&format!(
            "  snapshot   {} of {} tables, {} of ~{} rows{}\n",
            text(&snapshot["tables_done"]),
            text(&snapshot["tables"]),
            text(&snapshot["rows_done"]),
            text(&snapshot["rows_estimated"]),
            if snapshot["finished"].as_bool() == Some(true) {
                ", finished"
            } else {
                ""
            }
        ));
    }
    match d["clients"].as_array().filter(|c| !c.is_empty()) {
        None => out.push_str("  clients    none\n"),
        Some(clients) => {
            for c in clients {
                out.push_str(&format!(
                    "  client {}  connections {}  cursor {}  lag {}\n",
                    text(&c["client_id"]),
                    text(&c["connections"]),
                    cursor(&c["cursor"]),
                    seconds(&c["lag_seconds"])
                ));
            }
        }
    }
    out
}
