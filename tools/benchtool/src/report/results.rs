//! `results.json`: the rows with their best figures and the table's ratios.

use serde_json::{Value, json};

use crate::report::{Meta, Role, Row};

/// `results.json`: the machine, the toolchain, the file, and every run of every row
/// with the row's best figures and ratios.
pub fn results(meta: &Meta, file: Value, rows: &[Row]) -> Value {
    let step1 = rows
        .iter()
        .find(|r| r.role == Role::Step && r.number() == 1);
    let limit = rows
        .iter()
        .find(|r| r.role == Role::Limit && r.threads() == 1);
    let reference = rows.iter().find(|r| r.role == Role::Step);
    let mut file = file;
    if let Some(r) = reference {
        file["records"] = r.best()["fingerprint"]["records"].clone();
    }
    let rows: Vec<Value> = rows
        .iter()
        .map(|row| {
            let best = row.best();
            let ratio = |other: Option<&Row>| other.map(|o| row.mb_per_s() / o.mb_per_s());
            // A query step measures the same query on step 1's parser itself; a query
            // row that does not has no speedup over step 1 to show.
            let (x_step1, x_step1_of) = match best["speedup_over_step1"].as_f64() {
                Some(x) => (Some(x), Some("query")),
                // A query row (steps 5 and later, the yardsticks' queries, the peers)
                // that does not time step 1 itself: its MB/s over step 1's parse
                // would set a query (or step 9's load) against a parse.
                None if row.kind() == "query" => (None, None),
                None => (ratio(step1), Some("MB/s")),
            };
            let failed = row.failed();
            let (x_step1, fraction_of_limit) = match failed {
                Some(_) => (None, None),
                None => (x_step1, ratio(limit)),
            };
            let mut value = json!({
                "label": row.label(),
                "role": row.role.name(),
                "kind": row.kind(),
                "failed": failed,
                "step": row.step(),
                "number": row.number(),
                "threads": row.threads(),
                "query": row.query(),
                "part": row.part(),
                "idea": row.idea(),
                "best_s": best["best_s"],
                "mb_per_s": best["mb_per_s"],
                "first_run_mb_per_s": row.first_run_mb_per_s(),
                "mrows_per_s": best["mrows_per_s"],
                "allocs_per_pass": best["allocs_per_pass"],
                "peak_heap_bytes_per_pass": best["peak_heap_bytes_per_pass"],
                "x_step1": x_step1,
                "x_step1_of": x_step1_of,
                "fraction_of_limit": fraction_of_limit,
                "runs": row.runs,
            });
            if let Some(x) = best["speedup_over_csv"].as_f64() {
                value["x_csv_query"] = x.into();
                value["x_csv_query_of"] = best["versus"].clone();
            }
            if row.role == Role::Peer {
                value["version"] = row.first("version").clone();
                value["import_s"] = best["import_s"].clone();
                value["answer_matches_reference"] = best["answer_matches_reference"].clone();
            } else if row.role != Role::Limit {
                let same = reference.map(|r| r.best()["fingerprint"] == best["fingerprint"]);
                value["fingerprint"] = best["fingerprint"].clone();
                value["fingerprint_matches_first_step"] = same.into();
            }
            value
        })
        .collect();
    let r = &meta.run;
    json!({
        "machine": {
            "cpu": meta.cpu,
            "cpu_name": meta.cpu_name,
            "cpu_family": meta.cpu_family,
            "cpu_model": meta.cpu_model,
            "cores": meta.cores,
            "memory": meta.memory,
            "os": meta.os,
            "os_release": meta.os_release,
            "cpu_features": meta.cpu_features,
        },
        "toolchain": meta.rustc,
        "run": {
            "command": r.command,
            "kind": r.kind,
            "started_utc": r.started_utc,
            "finished_utc": r.finished_utc,
            "commit": r.commit,
            "dirty": r.dirty,
            "in_process": r.in_process,
        },
        "file": file,
        "runs_per_row": meta.runs,
        "interleaved": true,
        "rows": rows,
    })
}
