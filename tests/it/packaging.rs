//! What `cargo install` ships: `switchboard` alone. Every other binary of the package
//! (the test MCP server) needs a feature that is off by default and that only the
//! package's own dev-dependency on itself turns on, so tests, benches and
//! `clippy --all-targets` build it and `cargo install` / `cargo build` do not.
#![allow(clippy::expect_used)]

use toml::Value;

fn manifest() -> Value {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"))
        .expect("read Cargo.toml");
    Value::Table(toml::from_str(&text).expect("Cargo.toml is TOML"))
}

fn strings(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn cargo_install_builds_switchboard_only() {
    let m = manifest();
    let default_features = strings(m.get("features").and_then(|f| f.get("default")));
    let bins = m
        .get("bin")
        .and_then(Value::as_array)
        .expect("[[bin]] tables");
    let names: Vec<&str> = bins
        .iter()
        .filter_map(|b| b.get("name").and_then(Value::as_str))
        .collect();
    assert!(names.contains(&"switchboard"), "{names:?}");
    assert_eq!(
        m["package"]["default-run"].as_str(),
        Some("switchboard"),
        "`cargo run` picks switchboard"
    );
    let own = &m["dev-dependencies"]["switchboard"];
    let test_features = strings(own.get("features"));
    assert_eq!(own.get("path").and_then(Value::as_str), Some("."));
    for bin in bins {
        let name = bin["name"].as_str().unwrap_or_default();
        let required = strings(bin.get("required-features"));
        if name == "switchboard" {
            assert!(
                required.is_empty(),
                "switchboard needs no feature: {required:?}"
            );
            continue;
        }
        assert!(
            !required.is_empty(),
            "`{name}` would be installed by `cargo install`: give it required-features"
        );
        for feature in &required {
            assert!(
                !default_features.contains(feature),
                "`{name}` needs `{feature}`, which is on by default, so it would be installed"
            );
            assert!(
                test_features.contains(feature),
                "`{name}` needs `{feature}`, which the tests' self dev-dependency does not enable"
            );
        }
    }
}
