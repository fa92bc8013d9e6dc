//! The resume picker's data.

/// A saved session as the picker lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionRow {
    pub id: String,
    /// When it was last written, RFC 3339.
    pub time: String,
    pub turns: usize,
    pub title: String,
}

/// The picker: `rows` is `None` until the list arrives.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionPicker {
    pub rows: Option<Vec<SessionRow>>,
    pub sel: usize,
}
