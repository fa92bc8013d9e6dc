//! `switchboard config …`

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;

use clap::Subcommand;

use super::Cli;
use crate::config::{self, Config};
use crate::paths::{CandidateOrigin, ConfigCandidate, Dirs};

#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Validate a config file and say where it was found.
    Check {
        /// The file to check; default: the search order.
        path: Option<std::path::PathBuf>,
    },
    /// Print the config layers, each one's trust state and what it contributes.
    Path,
    /// Import MCP servers from a Claude Desktop, Claude Code, VS Code, Cursor or Codex
    /// config file into `[servers.NAME]` tables.
    Import {
        /// The file to import.
        file: std::path::PathBuf,
        /// Print the TOML instead of adding it to the config file.
        #[arg(long)]
        print: bool,
    },
}

/// Run a `config` subcommand. A config error is printed plainly on stderr and exits
/// with status 1; failing to write stdout (closed pipe) is returned as an error.
pub fn run(cli: &Cli, cmd: &ConfigCommand) -> color_eyre::Result<()> {
    let dirs = Dirs::from_env();
    let report = match cmd {
        ConfigCommand::Check { path } => {
            let given_as_argument = path.is_some();
            let explicit = path.as_deref().or(cli.config.as_deref());
            match crate::trust::Loaded::read(&dirs, explicit, &[]) {
                Ok(loaded) => {
                    let refused = refused_servers(&loaded);
                    if !refused.is_empty() {
                        for e in refused {
                            eprintln!("{e}");
                        }
                        std::process::exit(1);
                    }
                    check_report(&dirs, explicit, &loaded, given_as_argument)
                }
                Err(err) => {
                    eprintln!("{err}");
                    std::process::exit(1);
                }
            }
        }
        ConfigCommand::Path => {
            match crate::trust::Loaded::read(&dirs, cli.config.as_deref(), &cli.mcp_config) {
                Ok(loaded) => layers_report(&dirs, cli.config.as_deref(), &loaded),
                // A missing --config file is said by the search order itself.
                Err(config::ConfigError::Read { .. }) => search_order(&dirs, cli.config.as_deref()),
                Err(e) => format!("{}{e}\n", search_order(&dirs, cli.config.as_deref())),
            }
        }
        ConfigCommand::Import { file, print } => match import(cli, &dirs, file, *print) {
            Ok(report) => report,
            Err(message) => {
                eprintln!("{message}");
                std::process::exit(1);
            }
        },
    };
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(report.as_bytes())?;
    stdout.flush()?;
    Ok(())
}

/// Servers the file configures that would be refused before they start (shell
/// metacharacters, a URL that is not http(s), an unset `bearer_token_env_var`, a bad
/// header), each at its key's file:line:col.
fn refused_servers(loaded: &crate::trust::Loaded) -> Vec<config::ConfigError> {
    let layers = &loaded.layers;
    let mut errors = Vec::new();
    for layer in [&layers.explicit, &layers.user, &layers.project]
        .into_iter()
        .flatten()
    {
        errors.extend(refused_in(layer));
    }
    errors
}

fn refused_in(layer: &config::Layer) -> Vec<config::ConfigError> {
    let text = &layer.text;
    let Ok(map) = config::SourceMap::parse(text) else {
        return Vec::new();
    };
    let env = |name: &str| std::env::var(name).ok();
    let mut errors: Vec<config::ConfigError> = layer
        .config
        .servers
        .iter()
        .filter_map(|(name, server)| {
            let (key, message) = crate::mcp::refusal(server, &env)?;
            let path = ["servers", name.as_str(), key];
            Some(config::ConfigError::at(
                &layer.path,
                text,
                map.nearest_span(&path),
                config::KeyPath::new(&path).to_string(),
                crate::sanitize::sanitize_line(&message),
                Some("the server would be refused before start (mcp_handshake_failed)".into()),
            ))
        })
        .collect();
    errors.sort_by_key(|e| e.located_detail().map_or(usize::MAX, |l| l.span.start));
    errors
}

/// What `config check` prints on success: the files read, a summary of what they
/// configure together, and whether a project's part is held back.
fn check_report(
    dirs: &Dirs,
    explicit: Option<&Path>,
    loaded: &crate::trust::Loaded,
    given_as_argument: bool,
) -> String {
    let layers = &loaded.layers;
    let read: Vec<&config::Layer> = [&layers.explicit, &layers.user, &layers.project]
        .into_iter()
        .flatten()
        .collect();
    if read.is_empty() {
        return format!(
            "ok: no config file found; using the offline defaults\n{}",
            search_order(dirs, explicit)
        );
    }
    let files: Vec<String> = read
        .iter()
        .map(|layer| {
            let via = if given_as_argument {
                "given on the command line".to_owned()
            } else {
                format!("found via {}", layer.origin)
            };
            format!("{} ({via})", layer.path.display())
        })
        .collect();
    let whole = layers
        .config(config::merge::Reach::Full)
        .unwrap_or_default();
    let mut out = format!("ok: {}\n{}\n", files.join(" and "), summary(&whole));
    for file in loaded.left_out() {
        let _ = writeln!(
            out,
            "note: {} is {}: until `switchboard trust`, only its cosmetic keys apply",
            file.shown,
            file.state.label()
        );
    }
    out
}

/// `config path`: each layer, lowest first, with its trust state and, for a project
/// file, what it contributes; then what this start uses.
fn layers_report(dirs: &Dirs, explicit: Option<&Path>, loaded: &crate::trust::Loaded) -> String {
    let mut out = String::from("config layers, lowest first:\n");
    let found = |path: &Path| if path.is_file() { "found" } else { "missing" };
    if let Some(path) = explicit {
        let path = dirs.cwd.join(path);
        let _ = writeln!(
            out,
            "  1. {} (--config) ({}): the only layer; the user's and the project's files are not read",
            path.display(),
            found(&path)
        );
    } else {
        let user = dirs.user_config_file();
        let _ = writeln!(
            out,
            "  1. {} ({}) ({})",
            user.display(),
            CandidateOrigin::User,
            found(&user)
        );
        let project = dirs.cwd.join(crate::paths::PROJECT_CONFIG_FILE);
        let state = loaded
            .files
            .iter()
            .find(|f| f.kind == crate::trust::FileKind::Config)
            .map_or_else(
                || found(&project).to_owned(),
                |f| format!("found, {}", f.state.label()),
            );
        let _ = writeln!(
            out,
            "  2. {} ({}) ({state})",
            project.display(),
            CandidateOrigin::Project
        );
    }
    for file in &loaded.files {
        let applies = if file.applies {
            "applies"
        } else {
            "would apply once trusted"
        };
        if file.kind == crate::trust::FileKind::McpConfig {
            let _ = writeln!(
                out,
                "  +  {} (--mcp-config inside the folder) ({})",
                file.shown,
                file.state.label()
            );
        }
        let _ = writeln!(out, "     {applies}:");
        for item in &file.items {
            let _ = writeln!(out, "       {:<8} {}", item.effect.label(), item.text);
        }
    }
    let used: Vec<String> = [&loaded.layers.explicit, &loaded.layers.user]
        .into_iter()
        .flatten()
        .map(|l| l.path.display().to_string())
        .chain(
            loaded
                .files
                .iter()
                .filter(|f| f.applies)
                .map(|f| f.shown.clone()),
        )
        .collect();
    let _ = match (explicit, used.is_empty()) {
        (Some(path), true) => writeln!(
            out,
            "using: none: the --config file {} does not exist",
            dirs.cwd.join(path).display()
        ),
        (None, true) => writeln!(out, "using: none (offline defaults)"),
        (_, false) => writeln!(out, "using: {}", used.join(" + ")),
    };
    for file in loaded.left_out() {
        let _ = writeln!(
            out,
            "not used: {} ({}): review it with `switchboard trust`",
            file.shown,
            file.state.label()
        );
    }
    out
}

/// `3 servers, 1 provider, policy mode ask`
pub fn summary(config: &Config) -> String {
    let servers = config.servers.len();
    let providers = config.providers.len();
    let mode = config
        .policy
        .mode
        .as_ref()
        .map_or("ask (default)", |m| m.get_ref());
    format!(
        "{servers} {}, {providers} {}, policy mode {mode}",
        plural(servers, "server", "servers"),
        plural(providers, "provider", "providers"),
    )
}

fn plural<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 { one } else { many }
}

/// The numbered search order, each candidate marked found or missing, and the one used.
fn search_order(dirs: &Dirs, explicit: Option<&Path>) -> String {
    let candidates = dirs.config_candidates(explicit);
    let used = config::find_source(dirs, explicit);
    let mut out = String::from("config search order:\n");
    for (i, ConfigCandidate { path, origin }) in candidates.iter().enumerate() {
        let state = if path.is_file() { "found" } else { "missing" };
        let _ = writeln!(out, "  {}. {} ({origin}) ({state})", i + 1, path.display());
    }
    let _ = match used {
        Some(c) if c.path.is_file() => writeln!(out, "using: {}", c.path.display()),
        Some(c) if c.origin == CandidateOrigin::Explicit => writeln!(
            out,
            "using: none: the --config file {} does not exist",
            c.path.display()
        ),
        _ => writeln!(out, "using: none (offline defaults)"),
    };
    out
}

/// `config import`: the TOML to print, or a report of what was added where.
fn import(cli: &Cli, dirs: &Dirs, file: &Path, print: bool) -> Result<String, String> {
    use crate::config::import;
    let safe = crate::sanitize::sanitize_line;
    let imported = import::import_file(&dirs.cwd.join(file))
        .map_err(|e| format!("{}: {}", file.display(), safe(&e.to_string())))?;
    for warning in &imported.warnings {
        eprintln!("warning: {}: {}", file.display(), safe(warning));
    }
    let toml = import::to_toml(&imported.servers);
    if print {
        return Ok(toml);
    }
    // The person's own file (or `--config`): a project's would need trusting again.
    let target = super::mcp::target(cli, dirs, None);
    let existing = match std::fs::read_to_string(&target) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(format!("{}: {e}", target.display())),
    };
    let current = crate::settings::parse_str(&existing, &target).map_err(|e| e.to_string())?;
    let clashes: Vec<&str> = imported
        .servers
        .keys()
        .filter(|n| current.servers.contains_key(*n))
        .map(String::as_str)
        .collect();
    if !clashes.is_empty() {
        return Err(format!(
            "{}: already has servers named {}; remove them first or use --print",
            target.display(),
            safe(&clashes.join(", "))
        ));
    }
    let mut text = existing;
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    let _ = write!(
        text,
        "\n# imported from {} ({})\n{toml}",
        file.display(),
        imported.format
    );
    crate::settings::parse_str(&text, &target)
        .map_err(|e| format!("the imported servers do not validate: {e}"))?;
    if let Some(dir) = target.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    crate::paths::write_private(&target, &text)
        .map_err(|e| format!("{}: {e}", target.display()))?;
    let names: Vec<String> = imported.servers.keys().map(|n| safe(n)).collect();
    Ok(format!(
        "added {} {} from {} ({}) to {}: {}\n",
        names.len(),
        plural(names.len(), "server", "servers"),
        file.display(),
        imported.format,
        target.display(),
        names.join(", ")
    ))
}
