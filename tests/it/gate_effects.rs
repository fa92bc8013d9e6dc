//! Effect classification: specs, selector mapping, built-in tools.
#![allow(clippy::unwrap_used)] // helpers outside #[test] fns unwrap too

use serde_json::json;
use switchboard::tools::builtin_specs::{
    builtin_spec, fs_spec, http_spec, memory_spec, shell_spec,
};
use switchboard::tools::{Subject, ToolEffect, ToolSpec};

use crate::support::gate::args;

fn mapped() -> ToolSpec {
    ToolSpec::builder("t")
        .default_effect(ToolEffect::Compute)
        .effect_argument("op")
        .map_effect("Read", ToolEffect::Read)
        .map_effect("WRITE", ToolEffect::Write)
        .build()
}

#[test]
fn mapping_is_case_insensitive() {
    let spec = mapped();
    assert_eq!(
        spec.effect_for(&args(json!({"op": "read"}))),
        ToolEffect::Read
    );
    assert_eq!(
        spec.effect_for(&args(json!({"op": "rEaD"}))),
        ToolEffect::Read
    );
    assert_eq!(
        spec.effect_for(&args(json!({"op": "Write"}))),
        ToolEffect::Write
    );
}

#[test]
fn missing_mistyped_or_unmapped_selector_is_the_default() {
    let spec = mapped();
    assert_eq!(spec.effect_for(&args(json!({}))), ToolEffect::Compute);
    assert_eq!(
        spec.effect_for(&args(json!({"op": 3}))),
        ToolEffect::Compute
    );
    assert_eq!(
        spec.effect_for(&args(json!({"op": ["read"]}))),
        ToolEffect::Compute
    );
    assert_eq!(
        spec.effect_for(&args(json!({"op": "burn"}))),
        ToolEffect::Compute
    );
}

#[test]
fn absent_selector_uses_the_declared_default_value() {
    let http = http_spec();
    assert_eq!(
        http.effect_for(&args(json!({"url": "https://x"}))),
        ToolEffect::Read
    );
    assert_eq!(
        http.effect_for(&args(json!({"method": null}))),
        ToolEffect::Read
    );
    assert_eq!(
        http.effect_for(&args(json!({"method": "post"}))),
        ToolEffect::Write
    );
    assert_eq!(
        http.effect_for(&args(json!({"method": 1}))),
        ToolEffect::Write
    );
}

#[test]
fn a_tool_declaring_nothing_is_unknown() {
    let spec = ToolSpec::builder("srv__thing").build();
    assert_eq!(
        spec.effect_for(&args(json!({"op": "read"}))),
        ToolEffect::Unknown
    );
}

#[test]
fn builtin_effects() {
    let fs = fs_spec();
    for (op, want) in [
        ("read", ToolEffect::Read),
        ("list", ToolEffect::Read),
        ("exists", ToolEffect::Read),
        ("stat", ToolEffect::Read),
        ("write", ToolEffect::Write),
        ("delete", ToolEffect::Delete),
    ] {
        assert_eq!(
            fs.effect_for(&args(json!({"operation": op}))),
            want,
            "fs {op}"
        );
    }
    let memory = memory_spec();
    for (cmd, want) in [
        ("view", ToolEffect::Read),
        ("create", ToolEffect::Write),
        ("str_replace", ToolEffect::Write),
        ("insert", ToolEffect::Write),
        ("rename", ToolEffect::Write),
        ("delete", ToolEffect::Delete),
    ] {
        assert_eq!(
            memory.effect_for(&args(json!({"command": cmd}))),
            want,
            "memory {cmd}"
        );
    }
    assert_eq!(
        shell_spec().effect_for(&args(json!({}))),
        ToolEffect::Compute
    );
    let skills = builtin_spec("skills").unwrap();
    assert_eq!(skills.effect_for(&args(json!({}))), ToolEffect::Read);
    assert!(builtin_spec("nope").is_none());
}

#[test]
fn subjects() {
    let shell = shell_spec();
    let call = args(json!({"program": "git", "args": ["status", "--short"]}));
    assert_eq!(
        shell.subject_for(&call).as_deref(),
        Some("git status --short")
    );
    assert_eq!(
        shell
            .subject_for(&args(json!({"program": "ls"})))
            .as_deref(),
        Some("ls")
    );
    let fs = fs_spec();
    assert_eq!(
        fs.subject_for(&args(json!({"path": "docs/a.md"})))
            .as_deref(),
        Some("docs/a.md")
    );
    assert_eq!(fs.subject_for(&args(json!({"path": 3}))), None);
    assert_eq!(
        ToolSpec::builder("x")
            .subject(Subject::None)
            .build()
            .subject_for(&args(json!({"path": "a"}))),
        None
    );
}

#[test]
fn effect_names_round_trip() {
    for e in ToolEffect::ALL {
        assert_eq!(e.to_string().parse::<ToolEffect>(), Ok(e));
        assert_eq!(serde_json::to_value(e).unwrap(), json!(e.to_string()));
    }
    assert_eq!("WRITE".parse::<ToolEffect>(), Ok(ToolEffect::Write));
}
