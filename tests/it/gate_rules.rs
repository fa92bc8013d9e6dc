//! Rules: parsing, matching, precedence, config errors, grants and "always".
#![allow(clippy::unwrap_used)] // helpers outside #[test] fns unwrap too

use switchboard::config::Config;
use switchboard::policy::{
    CallFacts, DecisionReason, GrantScope, Mode, Policy, Rule, RuleError, RuleList, SessionGrants,
    Verdict, always_rule_for, append_allow_rule, suggested_allow_rule,
};
use switchboard::tools::{SubjectStyle, ToolEffect};

fn fs(op: &str, effect: ToolEffect, path: &str) -> CallFacts {
    CallFacts::new("fs", effect)
        .with_selector(op)
        .with_subject(path, SubjectStyle::Path)
}

fn shell(line: &str) -> CallFacts {
    CallFacts::new("shell", ToolEffect::Compute).with_subject(line, SubjectStyle::Text)
}

fn rule(text: &str) -> Rule {
    Rule::parse(text).unwrap()
}

#[test]
fn tool_name_globs() {
    let echo = CallFacts::new("everything__echo", ToolEffect::Unknown);
    assert!(rule("everything__echo").matches(&echo));
    assert!(rule("everything__*").matches(&echo));
    assert!(rule("*").matches(&echo));
    assert!(!rule("weather__*").matches(&echo));
    assert!(!rule("everything").matches(&echo));
}

#[test]
fn selector_and_path_globs() {
    let write_doc = fs("write", ToolEffect::Write, "docs/a.md");
    assert!(rule("fs(write:docs/**)").matches(&write_doc));
    assert!(rule("fs(WRITE:docs/*)").matches(&write_doc));
    assert!(
        rule("fs(write:*)").matches(&write_doc),
        "a lone * matches any subject"
    );
    assert!(rule("fs(*:docs/**)").matches(&write_doc));
    assert!(rule("fs(docs/a.md)").matches(&write_doc));
    assert!(!rule("fs(delete:*)").matches(&write_doc));
    assert!(!rule("fs(write:src/**)").matches(&write_doc));
    let nested = fs("write", ToolEffect::Write, "docs/deep/a.md");
    assert!(
        !rule("fs(write:docs/*)").matches(&nested),
        "* stops at / in paths"
    );
    assert!(rule("fs(write:docs/**)").matches(&nested));
}

#[test]
fn selector_also_matches_the_effect_name() {
    let create = CallFacts::new("memory", ToolEffect::Write)
        .with_selector("create")
        .with_subject("/memories/a", SubjectStyle::Path);
    assert!(rule("memory(write:*)").matches(&create));
    assert!(rule("memory(create:*)").matches(&create));
    let delete = CallFacts::new("memory", ToolEffect::Delete).with_selector("delete");
    assert!(
        rule("memory(delete:*)").matches(&delete),
        "missing subject matches *"
    );
}

#[test]
fn command_lines_glob_across_slashes() {
    assert!(rule("shell(git status*)").matches(&shell("git status")));
    assert!(rule("shell(git status*)").matches(&shell("git status src/a b/c")));
    assert!(!rule("shell(git status*)").matches(&shell("git push")));
    assert!(!rule("shell(git status)").matches(&shell("git status --short")));
}

#[test]
fn urls_are_not_selectors() {
    let get = CallFacts::new("http", ToolEffect::Read)
        .with_selector("GET")
        .with_subject("https://api.example.com/v1/x", SubjectStyle::Path);
    assert!(rule("http(https://api.example.com/**)").matches(&get));
    assert!(rule("http(get:https://api.example.com/**)").matches(&get));
    assert!(!rule("http(post:https://api.example.com/**)").matches(&get));
}

#[test]
fn invalid_rules() {
    assert_eq!(Rule::parse("  "), Err(RuleError::Empty));
    assert!(matches!(
        Rule::parse("fs(write:x"),
        Err(RuleError::Unclosed(_))
    ));
    assert!(matches!(Rule::parse("fs)"), Err(RuleError::StrayParen(_))));
    assert!(matches!(Rule::parse("(x)"), Err(RuleError::NoToolName(_))));
    assert!(matches!(Rule::parse("f s"), Err(RuleError::SpaceInName(_))));
    assert!(matches!(
        Rule::parse("fs()"),
        Err(RuleError::EmptyPattern(_))
    ));
    assert!(matches!(
        Rule::parse("fs(write:)"),
        Err(RuleError::EmptyPattern(_))
    ));
    let err = Rule::parse("fs(write:docs/[a)").unwrap_err();
    assert!(matches!(err, RuleError::Glob { .. }), "{err:?}");
    assert!(err.to_string().contains("docs/[a"), "{err}");
}

const CONFIG: &str = r#"
[policy]
mode = "auto-edit"
allow = ["fs(write:docs/**)", "weather__*", "fs(oops"]
deny = ["fs(delete:*)"]
"#;

#[test]
fn config_errors_carry_span_and_key() {
    let config: Config = toml::from_str(CONFIG).unwrap();
    let errors = Policy::from_config(&config.policy).unwrap_err();
    assert_eq!(errors.len(), 1);
    let e = &errors[0];
    assert_eq!(e.key, "policy.allow[2]");
    assert_eq!(&CONFIG[e.span.clone()], "\"fs(oops\"");
    assert!(e.message.contains("closing"), "{}", e.message);

    let bad = "[policy]\nmode = \"yolo\"\n[policy.effects]\nx = \"explode\"\n";
    let config: Config = toml::from_str(bad).unwrap();
    let errors = Policy::from_config(&config.policy).unwrap_err();
    let keys: Vec<&str> = errors.iter().map(|e| e.key.as_str()).collect();
    assert_eq!(keys, ["policy.mode", "policy.effects.x"]);
    assert_eq!(&bad[errors[0].span.clone()], "\"yolo\"");
}

#[test]
fn precedence_deny_ask_allow_grant_mode() {
    let config: Config = toml::from_str(&CONFIG.replace(", \"fs(oops\"", "")).unwrap();
    let policy = Policy::from_config(&config.policy).unwrap();
    assert_eq!(policy.mode(), Mode::AutoEdit);

    let d = policy.decide(&fs("delete", ToolEffect::Delete, "docs/a.md"));
    assert_eq!(d.verdict, Verdict::Deny);
    assert_eq!(d.to_string(), r#"denied by rule deny = "fs(delete:*)""#);
    assert_eq!(
        d.reason,
        DecisionReason::Rule {
            list: RuleList::Deny,
            index: 0,
            text: "fs(delete:*)".into()
        }
    );

    let d = policy.decide(&fs("write", ToolEffect::Write, "docs/a.md"));
    assert_eq!(d.verdict, Verdict::Allow);
    assert_eq!(d.reason.to_string(), r#"rule allow = "fs(write:docs/**)""#);

    let d = policy.decide(&CallFacts::new("srv__x", ToolEffect::Unknown));
    assert_eq!(d.verdict, Verdict::Ask);
    assert_eq!(d.to_string(), "mode auto-edit: unknown calls need approval");

    // ask beats allow; deny beats both
    let both = Policy::new(Mode::FullAuto)
        .with_rule(RuleList::Allow, "fs")
        .unwrap()
        .with_rule(RuleList::Ask, "fs(write:*)")
        .unwrap();
    let write = fs("write", ToolEffect::Write, "a");
    assert_eq!(both.decide(&write).verdict, Verdict::Ask);
    let all = both.with_rule(RuleList::Deny, "f*").unwrap();
    assert_eq!(all.decide(&write).verdict, Verdict::Deny);
}

#[test]
fn grants_sit_below_rules_and_above_the_mode() {
    let policy = Policy::new(Mode::Ask)
        .with_rule(RuleList::Ask, "fs(write:secret/**)")
        .unwrap();
    let grants = SessionGrants::new();
    let doc = fs("write", ToolEffect::Write, "docs/a.md");
    assert_eq!(policy.decide_with(&doc, &grants).verdict, Verdict::Ask);
    let id = grants.add(GrantScope::offered_for(&doc));
    let d = policy.decide_with(&doc, &grants);
    assert_eq!(d.verdict, Verdict::Allow);
    assert_eq!(d.to_string(), "allowed by session grant (fs write calls)");
    // another fs write path is covered (tool + effect) …
    let other = fs("write", ToolEffect::Write, "src/b.rs");
    assert_eq!(policy.decide_with(&other, &grants).verdict, Verdict::Allow);
    // … but not a delete, and never past an explicit ask rule
    let del = fs("delete", ToolEffect::Delete, "docs/a.md");
    assert_eq!(policy.decide_with(&del, &grants).verdict, Verdict::Ask);
    let secret = fs("write", ToolEffect::Write, "secret/k");
    assert_eq!(policy.decide_with(&secret, &grants).verdict, Verdict::Ask);

    assert_eq!(grants.list().len(), 1);
    assert!(grants.revoke(id));
    assert!(!grants.revoke(id));
    assert_eq!(policy.decide_with(&doc, &grants).verdict, Verdict::Ask);
}

#[test]
fn shell_grants_remember_the_command() {
    let grants = SessionGrants::new();
    let status = shell("git status");
    let offered = GrantScope::offered_for(&status);
    assert_eq!(
        offered.to_string(),
        "shell compute calls matching git status"
    );
    grants.add(offered);
    let policy = Policy::new(Mode::Ask);
    assert_eq!(policy.decide_with(&status, &grants).verdict, Verdict::Allow);
    assert_eq!(
        policy.decide_with(&shell("git push"), &grants).verdict,
        Verdict::Ask
    );
}

#[test]
fn always_rules_are_exact_and_parse_back() {
    let cases = [
        (
            fs("write", ToolEffect::Write, "docs/a.md"),
            "fs(write:docs/a.md)",
        ),
        (shell("git status"), "shell(git status)"),
        (shell("ls *.rs"), r"shell(ls \*.rs)"),
        (
            CallFacts::new("http", ToolEffect::Write)
                .with_selector("POST")
                .with_subject("https://x.io/a", SubjectStyle::Path),
            "http(POST:https://x.io/a)",
        ),
        (
            CallFacts::new("srv__echo", ToolEffect::Unknown),
            "srv__echo",
        ),
        (
            CallFacts::new("memory", ToolEffect::Delete).with_selector("delete"),
            "memory(delete:*)",
        ),
        (shell("date:x"), "shell(*:date:x)"),
    ];
    for (call, want) in cases {
        let text = always_rule_for(&call);
        assert_eq!(text, want);
        assert!(rule(&text).matches(&call), "{text} must match its own call");
    }
    assert!(!rule("shell(ls \\*.rs)").matches(&shell("ls a.rs")));
    assert_eq!(
        suggested_allow_rule(&fs("write", ToolEffect::Write, "docs/a.md")),
        "fs(write:*)"
    );
}

#[test]
fn append_allow_rule_preserves_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("switchboard.toml");
    let original =
        "# my config\ndefault_provider = \"scripted\" # keep me\n\n[ui]\nmouse = false\n";
    std::fs::write(&path, original).unwrap();
    append_allow_rule(&path, "fs(write:docs/a.md)").unwrap();
    append_allow_rule(&path, "shell(git status)").unwrap();
    append_allow_rule(&path, "shell(git status)").unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.starts_with(original), "{text}");
    let config: Config = toml::from_str(&text).unwrap();
    let allow: Vec<&str> = config
        .policy
        .allow
        .iter()
        .map(|s| s.get_ref().as_str())
        .collect();
    assert_eq!(allow, ["fs(write:docs/a.md)", "shell(git status)"]);

    // an existing [policy] table and array are extended in place
    std::fs::write(&path, "[policy]\nmode = \"ask\"\nallow = [\"x\"]\n").unwrap();
    append_allow_rule(&path, "y").unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("mode = \"ask\""));
    let config: Config = toml::from_str(&text).unwrap();
    assert_eq!(config.policy.allow.len(), 2);

    // a missing file is created
    let fresh = dir.path().join("new.toml");
    append_allow_rule(&fresh, "z").unwrap();
    let config: Config = toml::from_str(&std::fs::read_to_string(&fresh).unwrap()).unwrap();
    assert_eq!(config.policy.allow[0].get_ref(), "z");
}
