//! Corpus and properties for the untrusted-text sanitiser.

use std::borrow::Cow;

use proptest::prelude::*;
use switchboard::sanitize::{sanitize, sanitize_bytes, sanitize_line};

/// (what, input, expected)
const CORPUS: &[(&str, &str, &str)] = &[
    ("csi colour", "\x1b[31mred\x1b[0m", "red"),
    (
        "csi bold+colour params",
        "\x1b[1;38;5;196mhot\x1b[m!",
        "hot!",
    ),
    ("csi truecolour", "\x1b[38;2;255;0;0mx\x1b[39m", "x"),
    ("cursor up/left", "a\x1b[2A\x1b[10Db", "ab"),
    ("cursor position", "\x1b[H\x1b[5;10Hz", "z"),
    ("screen clear", "\x1b[2J\x1b[3Jcleared", "cleared"),
    ("private mode alt screen", "\x1b[?1049hin\x1b[?1049l", "in"),
    ("csi with intermediate", "\x1b[2 qcursor", "cursor"),
    ("csi aborted by ESC", "\x1b[31\x1b[0mok", "ok"),
    ("osc 52 clipboard BEL", "a\x1b]52;c;ZXZpbA==\x07b", "ab"),
    ("osc 52 clipboard ST", "a\x1b]52;c;ZXZpbA==\x1b\\b", "ab"),
    ("osc title", "\x1b]0;pwned\x07text", "text"),
    (
        "osc 8 hyperlink",
        "see \x1b]8;;https://evil.example/\x1b\\the docs\x1b]8;;\x1b\\ now",
        "see the docs now",
    ),
    (
        "osc unterminated",
        "keep\x1b]52;c;AAAA and the rest",
        "keep",
    ),
    ("osc cut by ESC", "\x1b]0;title\x1b[31mred", "red"),
    ("dcs", "x\x1bP1$r0m\x1b\\y", "xy"),
    ("dcs sixel unterminated", "x\x1bPq#0;2;0;0;0", "x"),
    ("apc", "x\x1b_Gf=100;AAAA\x1b\\y", "xy"),
    ("pm", "x\x1b^private\x1b\\y", "xy"),
    ("sos", "x\x1bXstring\x1b\\y", "xy"),
    ("lone esc mid", "a\x1b\u{3042}b", "a\u{3042}b"),
    ("lone esc before control", "a\x1b\x01b", "ab"),
    // `ESC SP F` is a complete (nF) escape, as a terminal would read it.
    ("esc space is an nF escape", "a\x1b b", "a"),
    ("lone esc before newline", "a\x1b\nb", "a\nb"),
    ("lone esc at end", "abc\x1b", "abc"),
    ("esc esc", "a\x1b\x1b[1mb", "ab"),
    ("two-char reset", "\x1bcreset", "reset"),
    ("two-char save cursor", "\x1b7saved\x1b8", "saved"),
    ("charset designation", "\x1b(0lqk\x1b(B", "lqk"),
    ("esc before non-ascii", "\x1bé", "é"),
    ("8-bit csi", "\u{9b}31mred\u{9b}0m", "red"),
    ("8-bit osc with 8-bit st", "\u{9d}52;c;AAAA\u{9c}ok", "ok"),
    ("8-bit osc with BEL", "\u{9d}0;t\u{7}ok", "ok"),
    ("8-bit dcs", "\u{90}q#0\u{9c}ok", "ok"),
    ("8-bit apc", "\u{9f}payload\u{9c}ok", "ok"),
    (
        "c1 controls",
        "a\u{85}b\u{8d}c\u{9c}d\u{80}\u{9a}e",
        "abcde",
    ),
    ("c0 controls", "a\u{0}b\u{7}c\u{8}d\u{c}e\u{1f}f", "abcdef"),
    ("del", "a\u{7f}b", "ab"),
    ("crlf", "one\r\ntwo\r\n", "one\ntwo\n"),
    (
        "cr overwrite",
        "rm -rf /tmp/x\rls       ",
        "rm -rf /tmp/xls       ",
    ),
    ("cr progress", "10%\r50%\r100%", "10%50%100%"),
    ("bidi override", "if admin\u{202e} }\u{2066}", "if admin }"),
    (
        "bidi all",
        "\u{202a}\u{202b}\u{202c}\u{202d}\u{202e}x\u{2066}\u{2067}\u{2068}\u{2069}",
        "x",
    ),
    ("tab at start", "\tx", "    x"),
    ("tab mid", "ab\tc", "ab  c"),
    ("tab at stop", "abcd\te", "abcd    e"),
    ("tabs per line", "a\tb\nabcdef\tg", "a   b\nabcdef  g"),
    ("tab counts chars not bytes", "日本\tx", "日本  x"),
    ("tab after stripped escape", "\x1b[1mab\x1b[0m\tc", "ab  c"),
    (
        "cjk and emoji untouched",
        "日本語 🎉👩‍💻 e\u{301}",
        "日本語 🎉👩‍💻 e\u{301}",
    ),
];

#[test]
fn corpus() {
    for (what, input, expected) in CORPUS {
        assert_eq!(sanitize(input), *expected, "{what}: {input:?}");
    }
}

#[test]
fn plain_text_is_borrowed_unchanged() {
    for input in ["", "plain text", "multi\nline\n", "日本語 🎉 ünïcödé"] {
        let out = sanitize(input);
        assert!(matches!(out, Cow::Borrowed(_)), "{input:?} was copied");
        assert_eq!(out, input);
    }
}

#[test]
fn changed_text_is_owned() {
    assert!(matches!(sanitize("a\x1b[0m"), Cow::Owned(_)));
    assert!(matches!(sanitize("a\tb"), Cow::Owned(_)));
}

#[test]
fn invalid_utf8_becomes_replacement_char() {
    assert_eq!(sanitize_bytes(b"ok\xff\xfe!"), "ok\u{fffd}\u{fffd}!");
    assert_eq!(sanitize_bytes(b"\x1b[31mred\xc3\x28"), "red\u{fffd}(");
    assert_eq!(sanitize_bytes("日本".as_bytes()), "日本");
    // A raw 0x9b byte is not UTF-8, so it is not an 8-bit CSI: it becomes U+FFFD.
    assert_eq!(sanitize_bytes(b"\x9b31mx"), "\u{fffd}31mx");
}

#[test]
fn line_form() {
    assert_eq!(sanitize_line("  My\tServer\r\n(v2)\n"), "My Server (v2)");
    assert_eq!(sanitize_line("a\n\n\t\nb"), "a b");
    assert_eq!(sanitize_line("\x1b[1mbold\x1b[0m name"), "bold name");
    assert_eq!(sanitize_line("\u{202e}evil\u{2069}"), "evil");
    assert_eq!(sanitize_line("\n\t"), "");
}

fn assert_clean(out: &str) {
    for c in out.chars() {
        let bad = (c.is_control() && c != '\n')
            || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
        assert!(!bad, "{c:?} survived in {out:?}");
    }
}

/// Strings biased towards the interesting characters.
fn hostile_string() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        any::<char>().prop_map(String::from),
        Just("\x1b".to_owned()),
        Just("\x1b[".to_owned()),
        Just("\x1b]".to_owned()),
        Just("\x1bP".to_owned()),
        Just("\\".to_owned()),
        Just("\x07".to_owned()),
        Just("\t".to_owned()),
        Just("\r\n".to_owned()),
        Just("\u{9b}".to_owned()),
        Just("\u{9c}".to_owned()),
        Just("\u{9d}".to_owned()),
        Just("\u{202e}".to_owned()),
        "[0-9;?]{0,4}[a-zA-Z]?",
        "[ -~]{0,6}",
    ];
    prop::collection::vec(piece, 0..24).prop_map(|parts| parts.concat())
}

proptest! {
    #[test]
    fn output_is_clean_for_strings(input in hostile_string()) {
        assert_clean(&sanitize(&input));
        assert_clean(&sanitize_line(&input));
    }

    #[test]
    fn output_is_clean_for_arbitrary_strings(input in any::<String>()) {
        assert_clean(&sanitize(&input));
    }

    #[test]
    fn output_is_clean_for_bytes(input in prop::collection::vec(any::<u8>(), 0..256)) {
        assert_clean(&sanitize_bytes(&input));
    }

    #[test]
    fn sanitize_is_idempotent(input in hostile_string()) {
        let once = sanitize(&input).into_owned();
        let twice = sanitize(&once);
        prop_assert!(matches!(twice, Cow::Borrowed(_)));
        prop_assert_eq!(twice, once.as_str());
    }

    #[test]
    fn sanitize_is_idempotent_for_arbitrary(input in any::<String>()) {
        let once = sanitize(&input).into_owned();
        prop_assert_eq!(sanitize(&once), once.as_str());
    }

    #[test]
    fn line_form_has_no_newlines_or_tabs(input in hostile_string()) {
        let line = sanitize_line(&input);
        prop_assert!(!line.contains(['\n', '\t']));
        prop_assert_eq!(line.trim(), line.as_str());
    }
}
