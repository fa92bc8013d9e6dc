//! Opening the authorization page: `$BROWSER` when set (the convention of many
//! command-line programs: a `:`-separated list of commands, `%s` standing for the
//! URL, else the URL is the last argument), else the platform opener. Commands run
//! without a shell. When nothing works the caller prints the URL.

use std::process::Stdio;
use std::time::Duration;

/// How long a browser command gets to fail before it counts as started.
const START_GRACE: Duration = Duration::from_millis(1500);

/// Why no browser command took the page.
#[derive(Debug, thiserror::Error)]
pub enum BrowserError {
    #[error("no browser command")]
    NoCommand,
    /// Every command failed, each for its own reason (in the order tried).
    #[error("{}", joined(.0))]
    Failed(Vec<OpenerFailure>),
}

/// Why one browser command did not take the page.
#[derive(Debug, thiserror::Error)]
pub enum OpenerFailure {
    /// It could not be started or waited for.
    #[error("{program}: {source}")]
    Io {
        program: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{program} exited with {status}")]
    Exited {
        program: String,
        status: std::process::ExitStatus,
    },
}

fn joined(failures: &[OpenerFailure]) -> String {
    failures
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

/// The commands to try, in order, for `browser` (the `$BROWSER` value, if any).
pub fn opener_commands(browser: Option<&str>, url: &str) -> Vec<Vec<String>> {
    let mut commands = Vec::new();
    if let Some(list) = browser.filter(|b| !b.trim().is_empty()) {
        for entry in list.split(':').filter(|e| !e.trim().is_empty()) {
            let Some(mut argv) = shlex::split(entry).filter(|a| !a.is_empty()) else {
                continue;
            };
            if argv.iter().any(|a| a.contains("%s")) {
                for arg in &mut argv {
                    *arg = arg.replace("%s", url);
                }
            } else {
                argv.push(url.to_owned());
            }
            commands.push(argv);
        }
        return commands;
    }
    let platform = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    commands.push(vec![platform.to_owned(), url.to_owned()]);
    commands
}

/// Opens `url`; returns the program that took it, or why none did.
pub async fn open(url: &str) -> Result<String, BrowserError> {
    let browser = std::env::var("BROWSER").ok();
    let mut why = Vec::new();
    for argv in opener_commands(browser.as_deref(), url) {
        let Some((program, args)) = argv.split_first() else {
            continue;
        };
        let spawned = tokio::process::Command::new(program)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn();
        let mut child = match spawned {
            Ok(child) => child,
            Err(source) => {
                why.push(OpenerFailure::Io {
                    program: program.clone(),
                    source,
                });
                continue;
            }
        };
        match tokio::time::timeout(START_GRACE, child.wait()).await {
            Ok(Ok(status)) if !status.success() => {
                why.push(OpenerFailure::Exited {
                    program: program.clone(),
                    status,
                });
            }
            Ok(Err(source)) => why.push(OpenerFailure::Io {
                program: program.clone(),
                source,
            }),
            // Still running (a browser window) or done fine: the page is open.
            Ok(Ok(_)) => return Ok(program.clone()),
            Err(_) => {
                // Reap it whenever it ends; never block the login on the browser.
                tokio::spawn(async move {
                    let _ = child.wait().await;
                });
                return Ok(program.clone());
            }
        }
    }
    Err(if why.is_empty() {
        BrowserError::NoCommand
    } else {
        BrowserError::Failed(why)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn browser_variable_is_a_list_with_percent_s() {
        let url = "https://as.example/authorize?x=1";
        assert_eq!(
            opener_commands(Some("firefox --new-tab:lynx '%s' -dump"), url),
            vec![
                vec!["firefox".to_owned(), "--new-tab".into(), url.into()],
                vec!["lynx".to_owned(), url.into(), "-dump".into()],
            ]
        );
        let platform = opener_commands(None, url);
        assert_eq!(platform.len(), 1);
        assert_eq!(platform[0].last().map(String::as_str), Some(url));
        assert_eq!(opener_commands(Some("  "), url), platform);
    }
}
