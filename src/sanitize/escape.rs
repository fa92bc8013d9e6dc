//! Skipping the bodies of ANSI / ECMA-48 escape sequences.
//!
//! Each function is called after the introducer has been consumed and consumes the rest
//! of the sequence. A char that cannot belong to the sequence is left unconsumed so the
//! main scan decides about it (a printable char is kept, a control is dropped, an ESC
//! starts a new sequence). Nothing here recurses, so hostile input cannot grow the stack.

use super::cursor::Cursor;

const ESC: char = '\u{1b}';
const BEL: char = '\u{7}';
/// 8-bit String Terminator.
const ST: char = '\u{9c}';

/// After `ESC`: decides the kind of sequence from the next char and skips it.
pub(super) fn skip_after_esc(cursor: &mut Cursor<'_>) {
    let Some(next) = cursor.peek() else {
        return; // lone ESC at the end
    };
    match next {
        '[' => {
            cursor.bump();
            skip_csi_body(cursor);
        }
        // OSC, DCS, SOS, PM, APC
        ']' | 'P' | 'X' | '^' | '_' => {
            cursor.bump();
            skip_control_string(cursor);
        }
        // nF escape (e.g. `ESC ( B`): intermediates, then one final byte.
        '\u{20}'..='\u{2f}' => {
            while matches!(cursor.peek(), Some('\u{20}'..='\u{2f}')) {
                cursor.bump();
            }
            if matches!(cursor.peek(), Some('\u{30}'..='\u{7e}')) {
                cursor.bump();
            }
        }
        // Two-char escapes: `ESC c`, `ESC 7`, `ESC =`, `ESC \` …
        '\u{30}'..='\u{7e}' => cursor.bump(),
        // Anything else (newline, control, non-ASCII): only the ESC goes.
        _ => {}
    }
}

/// CSI body: parameter bytes 0x30–0x3F and intermediate bytes 0x20–0x2F, then one final
/// byte 0x40–0x7E. An unexpected char ends the sequence unconsumed.
pub(super) fn skip_csi_body(cursor: &mut Cursor<'_>) {
    while matches!(cursor.peek(), Some('\u{20}'..='\u{3f}')) {
        cursor.bump();
    }
    if matches!(cursor.peek(), Some('\u{40}'..='\u{7e}')) {
        cursor.bump();
    }
}

/// Control string body (OSC, DCS, SOS, PM, APC): everything up to BEL, `ESC \` or the
/// 8-bit ST. Unterminated strings run to the end of the input. An ESC not followed by
/// `\` ends the string (as terminals do) and is left for the main scan.
pub(super) fn skip_control_string(cursor: &mut Cursor<'_>) {
    while let Some(c) = cursor.peek() {
        match c {
            BEL | ST => {
                cursor.bump();
                return;
            }
            ESC => {
                if cursor.peek_second() == Some('\\') {
                    cursor.bump();
                    cursor.bump();
                }
                return;
            }
            _ => cursor.bump(),
        }
    }
}
