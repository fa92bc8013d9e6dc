//! "Did you mean …?" hints for misspelt keys and values.

/// The closest candidate to `word`: edit distance ≤ 2 (and less than the word's length,
/// so `a` does not suggest `ui`), or one is a prefix of the other.
/// Ties go to the smallest distance, then to the earliest candidate.
pub fn closest<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
    candidates
        .iter()
        .filter(|c| !c.is_empty() && !word.is_empty())
        .map(|c| (edit_distance(word, c), *c))
        .filter(|(d, c)| {
            (*d <= 2 && *d < word.chars().count()) || c.starts_with(word) || word.starts_with(c)
        })
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// A hint for `word`, which should have been one of `candidates`: `did you mean `x`?`
/// when one is close, else `{what}: `a`, `b`, `c``. `None` when there are no
/// candidates.
pub fn hint(word: &str, candidates: &[&str], what: &str) -> Option<String> {
    if let Some(best) = closest(word, candidates) {
        return Some(format!("did you mean `{best}`?"));
    }
    if candidates.is_empty() {
        return None;
    }
    Some(format!("{what}: {}", backticked(candidates)))
}

/// `` `a`, `b`, `c` ``
pub fn backticked(items: &[&str]) -> String {
    items
        .iter()
        .map(|i| format!("`{i}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Levenshtein distance over characters.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.chars().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitute = prev[j] + usize::from(ca != *cb);
            cur[j + 1] = substitute.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(edit_distance("comand", "command"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("same", "same"), 0);
    }

    #[test]
    fn closest_prefers_small_distance_and_accepts_prefixes() {
        let keys = ["command", "args", "env", "url"];
        assert_eq!(closest("comand", &keys), Some("command"));
        assert_eq!(closest("comm", &keys), Some("command"));
        assert_eq!(closest("urls", &keys), Some("url"));
        assert_eq!(closest("zzzzzz", &keys), None);
    }

    #[test]
    fn hint_lists_candidates_when_nothing_is_close() {
        assert_eq!(
            hint("openia", &["openai", "gemini"], "accepted values").as_deref(),
            Some("did you mean `openai`?")
        );
        assert_eq!(
            hint("zzzzzz", &["read", "write"], "accepted values").as_deref(),
            Some("accepted values: `read`, `write`")
        );
        assert_eq!(hint("x", &[], "accepted values"), None);
    }
}
