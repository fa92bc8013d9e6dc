//! Model text as Markdown: headings, lists, emphasis, code blocks and inline code
//! become styled spans (no raw `**`), wrapped to a width.

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};
use unicode_width::UnicodeWidthChar;

/// How a piece of text is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MdStyle {
    Text,
    Strong,
    Emphasis,
    Code,
    CodeBlock,
    Heading,
    Marker,
    Quote,
}

/// One display line: styled pieces.
pub type MdLine = Vec<(MdStyle, String)>;

#[derive(Default)]
struct Builder {
    lines: Vec<MdLine>,
    /// The logical line being built (wrapped when flushed).
    current: MdLine,
    width: usize,
    strong: usize,
    emphasis: usize,
    heading: bool,
    quote: usize,
    code_block: bool,
    /// Open lists: the next number for ordered ones.
    lists: Vec<Option<u64>>,
    /// Indent for continuation lines of the current item.
    indent: usize,
    /// Lines laid out before these, the last of them not blank.
    after_text: bool,
}

impl Builder {
    fn style(&self) -> MdStyle {
        if self.code_block {
            MdStyle::CodeBlock
        } else if self.heading {
            MdStyle::Heading
        } else if self.strong > 0 {
            MdStyle::Strong
        } else if self.emphasis > 0 {
            MdStyle::Emphasis
        } else if self.quote > 0 {
            MdStyle::Quote
        } else {
            MdStyle::Text
        }
    }

    fn push(&mut self, style: MdStyle, text: &str) {
        self.current.push((style, text.to_string()));
    }

    fn flush(&mut self) {
        if self.current.is_empty() {
            return;
        }
        let line = std::mem::take(&mut self.current);
        let indent = self.indent;
        let wrapped = wrap_spans(&line, self.width.max(indent + 1), indent);
        self.lines.extend(wrapped);
    }

    fn blank(&mut self) {
        self.flush();
        if self.lines.last().map_or(self.after_text, |l| !l.is_empty()) {
            self.lines.push(Vec::new());
        }
    }
}

pub fn markdown_lines(text: &str, width: usize) -> Vec<MdLine> {
    let mut lines = continue_lines(text, width, false, false).0;
    while lines.last().is_some_and(Vec::is_empty) {
        lines.pop();
    }
    lines
}

/// A point in a streamed answer that later text cannot move: the text before it was
/// laid out as `lines` lines, and appending to the text changes none of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settled {
    /// Byte offset in the text: the start of a block, after a blank line.
    pub at: usize,
    /// Lines laid out before it.
    pub lines: usize,
}

/// The lines of `text` laid out after lines made before it (`after_text`: the last of
/// those is not blank), with the blank lines at the end kept. With `settle`, also the
/// last point after which appended text cannot change the lines before it; the caller
/// asks only when `text` holds no link definition (`]:`), as one defined later changes
/// how earlier references read.
///
/// Such a point starts a block at the top level, at the start of a line after a blank
/// line, not indented, with nothing open in the builder. A blank line ends every block
/// but a list and the open ones (a fenced code block, some HTML), which would have
/// gone on over the point; an indented line or a list item of its kind continues a
/// list, so after a list the block's first line must be whole (`2` may yet become
/// `2.`). So the text before the point lays out as it would alone, and stays so.
pub fn continue_lines(
    text: &str,
    width: usize,
    after_text: bool,
    settle: bool,
) -> (Vec<MdLine>, Option<Settled>) {
    let mut b = Builder {
        width,
        after_text,
        ..Builder::default()
    };
    let last_newline = text.rfind('\n');
    let mut depth = 0_usize;
    // The last block that ended at the top level was a list.
    let mut after_list = false;
    let mut settled = None;
    for (event, range) in Parser::new_ext(text, Options::ENABLE_STRIKETHROUGH).into_offset_iter() {
        if settle
            && depth == 0
            && matches!(event, Event::Start(_) | Event::Rule)
            && (!after_list || last_newline.is_some_and(|n| n > range.start))
            && starts_line_after_blank(text, range.start)
            && b.clean()
        {
            settled = Some(Settled {
                at: range.start,
                lines: b.lines.len(),
            });
        }
        match &event {
            Event::Start(_) => depth += 1,
            Event::End(end) => {
                depth = depth.saturating_sub(1);
                after_list = depth == 0 && matches!(end, TagEnd::List(_));
            }
            _ => {}
        }
        b.event(event);
    }
    b.flush();
    (b.lines, settled)
}

/// `at` starts a line, not indented, after an empty line.
fn starts_line_after_blank(text: &str, at: usize) -> bool {
    text.get(..at)
        .is_some_and(|before| before.ends_with("\n\n"))
        && text
            .get(at..)
            .is_some_and(|rest| !rest.starts_with([' ', '\t', '\n', '\r']))
}

impl Builder {
    /// Nothing open: the next block starts as it would at the top of a text.
    fn clean(&self) -> bool {
        self.current.is_empty()
            && self.strong == 0
            && self.emphasis == 0
            && !self.heading
            && self.quote == 0
            && !self.code_block
            && self.lists.is_empty()
            && self.indent == 0
    }

    fn event(&mut self, event: Event<'_>) {
        let b = self;
        match event {
            Event::Start(tag) => start(b, &tag),
            Event::End(end) => finish(b, end),
            Event::Text(t) if b.code_block => {
                for (i, line) in t.split('\n').enumerate() {
                    if i > 0 {
                        b.flush();
                    }
                    if !line.is_empty() {
                        b.push(MdStyle::CodeBlock, &format!("  {line}"));
                    }
                }
            }
            Event::Text(t) => {
                let style = b.style();
                b.push(style, &t);
            }
            Event::Code(c) => b.push(MdStyle::Code, &c),
            Event::SoftBreak => b.push(MdStyle::Text, " "),
            Event::HardBreak => b.flush(),
            Event::Rule => {
                b.blank();
                let rule = "─".repeat(b.width.min(40));
                b.push(MdStyle::Marker, &rule);
                b.flush();
            }
            Event::Html(h) | Event::InlineHtml(h) => b.push(MdStyle::Text, &h),
            Event::TaskListMarker(done) => {
                b.push(MdStyle::Marker, if done { "[x] " } else { "[ ] " });
            }
            Event::FootnoteReference(_) | Event::InlineMath(_) | Event::DisplayMath(_) => {}
        }
    }
}

fn start(b: &mut Builder, tag: &Tag<'_>) {
    match tag {
        Tag::Heading { .. } => {
            b.blank();
            b.heading = true;
        }
        Tag::BlockQuote(_) => {
            b.blank();
            b.quote += 1;
            b.push(MdStyle::Quote, "│ ");
        }
        Tag::CodeBlock(kind) => {
            b.blank();
            b.code_block = true;
            if let CodeBlockKind::Fenced(lang) = kind
                && !lang.is_empty()
            {
                b.push(MdStyle::Marker, &format!("  {lang}"));
                b.flush();
            }
        }
        Tag::List(first) => {
            b.flush();
            b.lists.push(*first);
        }
        Tag::Item => {
            b.flush();
            let depth = b.lists.len().saturating_sub(1);
            let marker = match b.lists.last_mut() {
                Some(Some(n)) => {
                    let m = format!("{n}. ");
                    *n += 1;
                    m
                }
                _ => "• ".to_string(),
            };
            let pad = "  ".repeat(depth);
            b.indent = pad.len() + marker.chars().count();
            b.push(MdStyle::Marker, &format!("{pad}{marker}"));
        }
        Tag::Emphasis => b.emphasis += 1,
        Tag::Strong => b.strong += 1,
        _ => {}
    }
}

fn finish(b: &mut Builder, end: TagEnd) {
    match end {
        TagEnd::Paragraph => {
            b.flush();
            if b.lists.is_empty() {
                b.blank();
            }
        }
        TagEnd::Heading(_) => {
            b.flush();
            b.heading = false;
            b.blank();
        }
        TagEnd::BlockQuote(_) => {
            b.flush();
            b.quote = b.quote.saturating_sub(1);
        }
        TagEnd::CodeBlock => {
            b.flush();
            b.code_block = false;
            b.blank();
        }
        TagEnd::List(_) => {
            b.flush();
            b.lists.pop();
            b.indent = 0;
            if b.lists.is_empty() {
                b.blank();
            }
        }
        TagEnd::Item => b.flush(),
        TagEnd::Emphasis => b.emphasis = b.emphasis.saturating_sub(1),
        TagEnd::Strong => b.strong = b.strong.saturating_sub(1),
        _ => {}
    }
}

/// Word-wrap styled spans; continuation lines start with `indent` spaces.
fn wrap_spans(line: &[(MdStyle, String)], width: usize, indent: usize) -> Vec<MdLine> {
    let mut out: Vec<MdLine> = Vec::new();
    let mut cur: MdLine = Vec::new();
    let mut cur_w = 0;
    for (style, text) in line {
        for word in text.split_inclusive(' ') {
            // A word that fits whole, spaces and all: nothing below would break it.
            let whole: usize = word.chars().map(|c| c.width().unwrap_or(0)).sum();
            if cur_w + whole <= width {
                match cur.last_mut() {
                    Some((s, t)) if s == style => t.push_str(word),
                    _ => cur.push((*style, word.to_string())),
                }
                cur_w += whole;
                continue;
            }
            let w: usize = word
                .trim_end()
                .chars()
                .map(|c| c.width().unwrap_or(0))
                .sum();
            if cur_w > indent && cur_w + w > width {
                trim_end(&mut cur);
                out.push(std::mem::take(&mut cur));
                cur.push((MdStyle::Text, " ".repeat(indent)));
                cur_w = indent;
            }
            for c in word.chars() {
                let cw = c.width().unwrap_or(0);
                if cur_w + cw > width && cur_w > indent {
                    if c == ' ' {
                        continue;
                    }
                    out.push(std::mem::take(&mut cur));
                    cur.push((MdStyle::Text, " ".repeat(indent)));
                    cur_w = indent;
                }
                match cur.last_mut() {
                    Some((s, t)) if s == style => t.push(c),
                    _ => cur.push((*style, c.to_string())),
                }
                cur_w += cw;
            }
        }
    }
    trim_end(&mut cur);
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

fn trim_end(line: &mut MdLine) {
    if let Some((_, t)) = line.last_mut() {
        let trimmed = t.trim_end().len();
        t.truncate(trimmed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(lines: &[MdLine]) -> Vec<String> {
        lines
            .iter()
            .map(|l| l.iter().map(|(_, t)| t.as_str()).collect())
            .collect()
    }

    #[test]
    fn emphasis_loses_its_markers() {
        let lines = markdown_lines("Some **bold** and *soft* and `code`.", 80);
        assert_eq!(plain(&lines), vec!["Some bold and soft and code."]);
        assert!(lines[0].contains(&(MdStyle::Strong, "bold".into())));
        assert!(lines[0].contains(&(MdStyle::Code, "code".into())));
    }

    #[test]
    fn headings_lists_and_code_blocks() {
        let md = "# Title\n\nIntro.\n\n- one\n- two\n\n1. first\n2. second\n\n```rust\nfn main() {}\n```\n";
        let lines = markdown_lines(md, 80);
        assert_eq!(
            plain(&lines),
            vec![
                "Title",
                "",
                "Intro.",
                "",
                "• one",
                "• two",
                "",
                "1. first",
                "2. second",
                "",
                "  rust",
                "  fn main() {}"
            ]
        );
        assert_eq!(lines[0][0].0, MdStyle::Heading);
        assert_eq!(lines[11][0].0, MdStyle::CodeBlock);
    }

    /// `wrap_spans` as it was, a char at a time.
    fn wrap_by_char(line: &[(MdStyle, String)], width: usize, indent: usize) -> Vec<MdLine> {
        let mut out: Vec<MdLine> = Vec::new();
        let mut cur: MdLine = Vec::new();
        let mut cur_w = 0;
        for (style, text) in line {
            for word in text.split_inclusive(' ') {
                let w: usize = word
                    .trim_end()
                    .chars()
                    .map(|c| c.width().unwrap_or(0))
                    .sum();
                if cur_w > indent && cur_w + w > width {
                    trim_end(&mut cur);
                    out.push(std::mem::take(&mut cur));
                    cur.push((MdStyle::Text, " ".repeat(indent)));
                    cur_w = indent;
                }
                for c in word.chars() {
                    let cw = c.width().unwrap_or(0);
                    if cur_w + cw > width && cur_w > indent {
                        if c == ' ' {
                            continue;
                        }
                        out.push(std::mem::take(&mut cur));
                        cur.push((MdStyle::Text, " ".repeat(indent)));
                        cur_w = indent;
                    }
                    match cur.last_mut() {
                        Some((s, t)) if s == style => t.push(c),
                        _ => cur.push((*style, c.to_string())),
                    }
                    cur_w += cw;
                }
            }
        }
        trim_end(&mut cur);
        if !cur.is_empty() {
            out.push(cur);
        }
        out
    }

    proptest::proptest! {
        /// Whole words that fit are placed at once, with the same lines as before.
        #[test]
        fn words_placed_whole_wrap_as_char_by_char(
            spans in proptest::collection::vec(
                (0_usize..3, "([a-z]{1,12}| {1,3}|日本|\u{301}|\t){0,8}"),
                0..8,
            ),
            width in 1_usize..30,
            indent in 0_usize..6,
        ) {
            let styles = [MdStyle::Text, MdStyle::Strong, MdStyle::Code];
            let line: MdLine = spans.into_iter().map(|(s, t)| (styles[s], t)).collect();
            let width = width.max(indent + 1);
            proptest::prop_assert_eq!(
                wrap_spans(&line, width, indent),
                wrap_by_char(&line, width, indent)
            );
        }
    }

    #[test]
    fn list_items_wrap_under_their_text() {
        let lines = markdown_lines("- alpha beta gamma delta", 12);
        assert_eq!(plain(&lines), vec!["• alpha beta", "  gamma", "  delta"]);
    }
}
