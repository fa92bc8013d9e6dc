use std::sync::Arc;

use proptest::prelude::*;

use super::*;

fn hay(name: &str, title: &str, description: &str) -> Arc<Haystack> {
    Arc::new(Haystack::new(name, title, "srv", description))
}

fn run(memo: &Narrowing, hays: &[Arc<Haystack>], query: &str) -> Vec<usize> {
    let refs: Vec<&Arc<Haystack>> = hays.iter().collect();
    memo.filter(&refs, query)
}

#[test]
fn tiers_rank_name_matches_before_description_matches() {
    let hays = [
        hay("files", "", "read a forecast file"),
        hay("srv__get_forecast", "", "weather"),
        hay("fmt_ore", "", "formats ore"),
        hay("list", "", "lists files under the workspace"),
        hay("srv__forecast", "", ""),
        hay("Foresight", "", ""),
    ];
    // Prefix (of the name, or of the tool part), substring, fuzzy, description.
    assert_eq!(run(&Narrowing::default(), &hays, "fore"), [4, 5, 1, 2, 0]);
}

#[test]
fn fuzzy_matches_are_ordered_by_score() {
    let hays = [
        hay("a_g_e_t", "", ""),
        hay("get_weather", "", ""),
        hay("target", "", ""),
    ];
    // "gt": all three are fuzzy; the word-boundary matches score higher.
    let order = run(&Narrowing::default(), &hays, "gwt");
    assert_eq!(order[0], 1, "{order:?}");
    assert_eq!(order.len(), 1);
    let order = run(&Narrowing::default(), &hays, "gt");
    assert_eq!(order.len(), 3);
}

#[test]
fn a_new_list_of_entries_is_filtered_afresh() {
    let memo = Narrowing::default();
    let first = [hay("alpha", "", ""), hay("beta", "", "")];
    assert_eq!(run(&memo, &first, "a"), [0, 1]);
    assert_eq!(run(&memo, &first, "al"), [0]);
    // Same length, different entries: the memo of "al" must not be reused.
    let second = [hay("gamma", "", ""), hay("alto", "", "")];
    assert_eq!(run(&memo, &second, "al"), [1]);
    assert_eq!(run(&memo, &second, "a"), [1, 0]);
}

#[test]
fn the_palette_subsequence() {
    assert!(is_subsequence("", "anything"));
    assert!(is_subsequence("qt", "quit"));
    assert!(!is_subsequence("tq", "quit"));
    assert!(is_subsequence("éà", "été à"));
    assert!(!is_subsequence("e", "été"));
}

/// The tier the previous hand-written matcher gave (no scores).
fn old_tier(q: &str, name: &str, title: &str, description: &str) -> Option<u8> {
    let sub = |n: &str, h: &str| {
        let mut h = h.chars();
        n.chars().all(|c| h.any(|x| x == c))
    };
    if name.starts_with(q) || name.split("__").nth(1).is_some_and(|t| t.starts_with(q)) {
        Some(0)
    } else if name.contains(q) || title.contains(q) {
        Some(1)
    } else if sub(q, name) || sub(q, title) {
        Some(2)
    } else if "srv".contains(q) || description.contains(q) {
        Some(3)
    } else {
        None
    }
}

fn entry() -> impl Strategy<Value = (String, String, String)> {
    ("[a-e_]{0,10}", "[a-eé ]{0,6}", "[a-e ]{0,12}")
}

proptest! {
    /// Typing and deleting, the remembered answer is the fresh one, and the tiers are
    /// the previous matcher's (within the fuzzy tier only the order may differ).
    #[test]
    fn narrowing_agrees_with_a_fresh_filter(
        entries in prop::collection::vec(entry(), 0..30),
        keys in prop::collection::vec(prop::option::of("[a-e_]"), 1..12),
    ) {
        let hays: Vec<_> = entries.iter().map(|(n, t, d)| hay(n, t, d)).collect();
        let memo = Narrowing::default();
        let mut query = String::new();
        for key in keys {
            match key {
                Some(c) => query.push_str(&c),
                None => { query.pop(); }
            }
            if query.is_empty() {
                continue;
            }
            let remembered = run(&memo, &hays, &query);
            prop_assert_eq!(&remembered, &run(&Narrowing::default(), &hays, &query));
            let tiers: Vec<u8> = remembered
                .iter()
                .map(|&i| {
                    let (n, t, d) = &entries[i];
                    old_tier(&query, n, t, d).unwrap_or(9)
                })
                .collect();
            prop_assert!(tiers.windows(2).all(|w| w[0] <= w[1]), "{:?}", tiers);
            let expected = entries
                .iter()
                .filter(|(n, t, d)| old_tier(&query, n, t, d).is_some())
                .count();
            prop_assert_eq!(remembered.len(), expected);
        }
    }
}

#[test]
fn a_match_never_crosses_from_one_part_into_the_next() {
    let hays = [hay("ab", "cd", "ef")];
    let memo = Narrowing::default();
    assert_eq!(run(&memo, &hays, "bc"), Vec::<usize>::new());
    assert_eq!(run(&memo, &hays, "b"), [0]);
    // The server is "srv": "vef" would span server and description.
    assert_eq!(
        run(&Narrowing::default(), &hays, "vef"),
        Vec::<usize>::new()
    );
    assert_eq!(run(&Narrowing::default(), &hays, "ef"), [0]);
}

#[test]
fn one_character_is_decided_by_the_bags_alone() {
    let hays = [
        hay("alpha", "", ""),
        hay("beta", "", "with a z"),
        hay("gamma", "Zeta", ""),
        hay("delta", "", "été"),
    ];
    assert_eq!(run(&Narrowing::default(), &hays, "z"), [2, 1]);
    assert_eq!(run(&Narrowing::default(), &hays, "é"), [3]);
    assert_eq!(run(&Narrowing::default(), &hays, "x"), Vec::<usize>::new());
}

/// Each part is lower-cased as `str::to_lowercase` does it, in its own place, also
/// when lower-casing changes its length (İ becomes two chars) or is not ASCII.
#[test]
fn a_haystack_holds_each_part_lower_cased_in_place() {
    let parts = [
        [
            "GitHub__Create_Issue",
            "Create An Issue",
            "GitHub",
            "Opens AN issue.",
        ],
        ["İstanbul__Hava", "Ὀδυσσεύς ΣΟΦΟΣ", "Sunucu", "ÇOK güzel"],
        ["", "", "", ""],
    ];
    for [name, title, server, description] in parts {
        let h = Haystack::new(name, title, server, description);
        assert_eq!(h.name(), name.to_lowercase());
        assert_eq!(h.title(), title.to_lowercase());
        assert_eq!(h.server(), server.to_lowercase());
        assert_eq!(h.description(), description.to_lowercase());
        assert_eq!(h.tool().is_some(), name.contains("__"));
        assert_eq!(h.wide.is_some(), !name.is_ascii() || !title.is_ascii());
    }
    let h = Haystack::new("İstanbul__Hava", "", "", "");
    assert_eq!(h.tool(), Some("hava"));
}
