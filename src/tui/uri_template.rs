//! URI templates (RFC 6570, the forms MCP servers use): the variables a template
//! names, and its expansion with values.

use std::fmt::Write as _;

/// Variable names in order of appearance: `file:///{path}` → `path`;
/// `api://{+base}/items{?limit,page}` → `base`, `limit`, `page`.
pub fn variables(template: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for expr in expressions(template) {
        for name in names(expr) {
            if !out.contains(&name) {
                out.push(name);
            }
        }
    }
    out
}

/// Expand with `value(name)`; empty values drop their query parameter.
pub fn expand(template: &str, value: impl Fn(&str) -> String) -> String {
    let mut out = String::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let Some(close) = rest[open..].find('}') else {
            out.push_str(&rest[open..]);
            return out;
        };
        let expr = &rest[open + 1..open + close];
        let op = expr.chars().next().filter(|c| "+#./;?&".contains(*c));
        let vars = names(expr);
        match op {
            Some('?' | '&') => {
                let pairs: Vec<String> = vars
                    .iter()
                    .map(|n| (n, value(n)))
                    .filter(|(_, v)| !v.is_empty())
                    .map(|(n, v)| format!("{n}={}", encode(&v, false)))
                    .collect();
                if !pairs.is_empty() {
                    out.push(if op == Some('?') { '?' } else { '&' });
                    out.push_str(&pairs.join("&"));
                }
            }
            Some('+' | '#') => {
                if op == Some('#') {
                    out.push('#');
                }
                let joined: Vec<String> = vars.iter().map(|n| encode(&value(n), true)).collect();
                out.push_str(&joined.join(","));
            }
            Some(prefix @ ('.' | '/' | ';')) => {
                for n in &vars {
                    out.push(prefix);
                    out.push_str(&encode(&value(n), false));
                }
            }
            _ => {
                let joined: Vec<String> = vars.iter().map(|n| encode(&value(n), false)).collect();
                out.push_str(&joined.join(","));
            }
        }
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    out
}

fn expressions(template: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        out.push(&rest[open + 1..open + close]);
        rest = &rest[open + close + 1..];
    }
    out
}

fn names(expr: &str) -> Vec<String> {
    expr.trim_start_matches(|c| "+#./;?&".contains(c))
        .split(',')
        .map(|v| {
            v.split(':')
                .next()
                .unwrap_or(v)
                .trim_end_matches('*')
                .trim()
        })
        .filter(|v| !v.is_empty())
        .map(str::to_string)
        .collect()
}

/// Percent-encode all but unreserved characters (and, for `+`/`#`, reserved ones too).
fn encode(value: &str, keep_reserved: bool) -> String {
    let mut out = String::new();
    for b in value.bytes() {
        let c = char::from(b);
        let unreserved = c.is_ascii_alphanumeric() || "-._~".contains(c);
        let reserved = ":/?#[]@!$&'()*+,;=".contains(c);
        if unreserved || (keep_reserved && reserved) {
            out.push(c);
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_expansion() {
        let t = "api://{+base}/items/{id}{?limit,page}";
        assert_eq!(variables(t), vec!["base", "id", "limit", "page"]);
        let v = |n: &str| match n {
            "base" => "x/y".to_string(),
            "id" => "a b".to_string(),
            "limit" => "5".to_string(),
            _ => String::new(),
        };
        assert_eq!(expand(t, v), "api://x/y/items/a%20b?limit=5");
        assert_eq!(
            expand("test://static/resource/{id}", |_| "7".into()),
            "test://static/resource/7"
        );
        assert_eq!(variables("plain://no/vars"), Vec::<String>::new());
    }
}
