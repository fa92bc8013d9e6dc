//! MCP tools are registered as `SERVER__TOOL`: one separator, one way to join and
//! split it.

/// Separates server and tool in a qualified name.
pub const QUALIFIER: &str = "__";

/// `SERVER__TOOL`.
pub fn qualified_name(server: &str, tool: &str) -> String {
    format!("{server}{QUALIFIER}{tool}")
}

/// `("SERVER", "TOOL")` for `SERVER__TOOL` (at the first separator: server names
/// never hold one); `None` for a built-in's plain name.
pub fn split_qualified(name: &str) -> Option<(&str, &str)> {
    name.split_once(QUALIFIER)
}

/// The server a registered tool comes from: `builtin` for the built-ins.
pub fn server_of(name: &str) -> &str {
    split_qualified(name).map_or("builtin", |(server, _)| server)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joins_and_splits_at_the_first_separator() {
        assert_eq!(qualified_name("gh", "create_issue"), "gh__create_issue");
        assert_eq!(split_qualified("gh__a__b"), Some(("gh", "a__b")));
        assert_eq!(split_qualified("fs"), None);
        assert_eq!(server_of("fs"), "builtin");
        assert_eq!(server_of("gh__x"), "gh");
    }
}
