//! Entering and leaving the terminal's full-screen mode. The terminal is restored on
//! normal exit, on error (the guard's Drop) and on panic (the panic hook).

use std::io::{self, Stdout, stdout};
use std::sync::atomic::{AtomicBool, Ordering};

use crossterm::event::{
    DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture,
    KeyboardEnhancementFlags, PopKeyboardEnhancementFlags, PushKeyboardEnhancementFlags,
};
use crossterm::execute;
use crossterm::terminal::{
    Clear, ClearType, EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode,
    enable_raw_mode, supports_keyboard_enhancement,
};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;

pub type Term = Terminal<CrosstermBackend<Stdout>>;

static ACTIVE: AtomicBool = AtomicBool::new(false);
static KEYBOARD_FLAGS: AtomicBool = AtomicBool::new(false);

/// Restores the terminal when dropped.
pub struct TerminalGuard {
    pub terminal: Term,
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore();
    }
}

/// Raw mode, alternate screen, bracketed paste, optional mouse capture, and
/// disambiguated keys (so Shift+Enter differs from Enter) where the terminal can.
pub fn enter(mouse: bool) -> io::Result<TerminalGuard> {
    enter_modes(mouse)?;
    let terminal = Terminal::new(CrosstermBackend::new(stdout()))?;
    Ok(TerminalGuard { terminal })
}

fn enter_modes(mouse: bool) -> io::Result<()> {
    enable_raw_mode()?;
    ACTIVE.store(true, Ordering::SeqCst);
    let mut out = stdout();
    execute!(out, EnterAlternateScreen, EnableBracketedPaste)?;
    if mouse {
        execute!(out, EnableMouseCapture)?;
    }
    if supports_keyboard_enhancement().unwrap_or(false) {
        execute!(
            out,
            PushKeyboardEnhancementFlags(KeyboardEnhancementFlags::DISAMBIGUATE_ESCAPE_CODES)
        )?;
        KEYBOARD_FLAGS.store(true, Ordering::SeqCst);
    }
    // Clear without ratatui's `Terminal::clear`, which asks the terminal for the cursor
    // position and fails on terminals that do not answer.
    execute!(out, Clear(ClearType::All))?;
    Ok(())
}

/// Hands the terminal to another full-screen program (an editor) and takes it back:
/// the normal screen and cooked mode while `run` runs, then everything as before and
/// a full redraw. Keys must not be read meanwhile (the caller drops its event stream).
pub fn suspended<T>(
    guard: &mut TerminalGuard,
    mouse: bool,
    run: impl FnOnce() -> T,
) -> io::Result<T> {
    restore();
    let out = run();
    enter_modes(mouse)?;
    // Clears the screen and the back buffer: the next draw repaints every cell.
    let size = guard.terminal.size()?;
    guard
        .terminal
        .resize(ratatui::layout::Rect::new(0, 0, size.width, size.height))?;
    Ok(out)
}

pub fn set_mouse_capture(on: bool) -> io::Result<()> {
    if on {
        execute!(stdout(), EnableMouseCapture)
    } else {
        execute!(stdout(), DisableMouseCapture)
    }
}

/// Put `text` on the system clipboard through the terminal (OSC 52; most terminals
/// and tmux with `set-clipboard on` pass it on, also over SSH). Only while the
/// terminal is ours: tests and headless runs write nothing.
pub fn copy_to_clipboard(text: &str) -> io::Result<()> {
    if !ACTIVE.load(Ordering::SeqCst) {
        return Ok(());
    }
    execute!(
        stdout(),
        crossterm::clipboard::CopyToClipboard::to_clipboard_from(text)
    )
}

/// Put the terminal back as it was. Safe to call more than once and from a panic hook.
pub fn restore() {
    if !ACTIVE.swap(false, Ordering::SeqCst) {
        return;
    }
    let mut out = stdout();
    if KEYBOARD_FLAGS.swap(false, Ordering::SeqCst) {
        let _ = execute!(out, PopKeyboardEnhancementFlags);
    }
    let _ = execute!(
        out,
        DisableMouseCapture,
        DisableBracketedPaste,
        LeaveAlternateScreen,
        crossterm::cursor::Show
    );
    let _ = disable_raw_mode();
}

/// color-eyre for errors; panics restore the terminal first, go to the log, and are
/// printed once the screen is back to normal.
pub fn install_hooks() -> color_eyre::Result<()> {
    let (panic_hook, eyre_hook) = color_eyre::config::HookBuilder::default().into_hooks();
    eyre_hook.install()?;
    std::panic::set_hook(Box::new(move |info| {
        restore();
        tracing::error!(
            "panic: {info}\n{}",
            std::backtrace::Backtrace::force_capture()
        );
        eprintln!("{}", panic_hook.panic_report(info));
    }));
    Ok(())
}
