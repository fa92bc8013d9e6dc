use super::*;

fn server(sandbox: Option<SandboxSetting>, from_project: bool) -> ServerConfig {
    ServerConfig {
        command: Some("srv".into()),
        sandbox,
        from_project,
        ..ServerConfig::default()
    }
}

#[test]
fn the_servers_own_setting_wins_then_mcp_then_project() {
    use SandboxDefault::{Off, On};
    let table = SandboxSetting::With(SandboxConfig {
        network: true,
        ..SandboxConfig::default()
    });
    // Explicit beats both the [mcp] default and the project origin.
    assert!(!wanted(&server(Some(SandboxSetting::On(false)), true), On));
    assert!(wanted(&server(Some(SandboxSetting::On(true)), false), Off));
    assert!(wanted(&server(Some(table.clone()), false), Off));
    // Then `[mcp] sandbox`, then the project origin.
    assert!(wanted(&server(None, false), On));
    assert!(wanted(&server(None, true), Off));
    assert!(!wanted(&server(None, false), Off));
    assert_eq!(
        settings(&server(Some(table), false), Off).map(|s| s.network),
        Some(true)
    );
    assert_eq!(
        settings(&server(None, true), Off),
        Some(SandboxConfig::default())
    );
    assert_eq!(settings(&server(None, false), Off), None);
}

struct Tree {
    _root: tempfile::TempDir,
    home: PathBuf,
    bin: PathBuf,
    workspace: PathBuf,
    temp: PathBuf,
}

fn tree() -> Tree {
    let root = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(root.path()).unwrap();
    let home = base.join("home");
    let bin = base.join("tools/bin");
    let workspace = base.join("proj");
    let temp = base.join("tmp");
    for dir in [&home, &bin, &temp, &workspace.join("node_modules/pkg/dist")] {
        std::fs::create_dir_all(dir).unwrap();
    }
    let srv = base.join("tools/lib/srv");
    std::fs::create_dir_all(srv.parent().unwrap()).unwrap();
    std::fs::write(&srv, "#!/bin/sh\n").unwrap();
    std::fs::set_permissions(&srv, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::os::unix::fs::symlink(&srv, bin.join("srv")).unwrap();
    std::fs::write(workspace.join("node_modules/pkg/dist/index.js"), "").unwrap();
    Tree {
        _root: root,
        home,
        bin,
        workspace,
        temp,
    }
}

#[test]
fn the_read_set_covers_system_path_install_tree_and_workspace_but_not_home() {
    let t = tree();
    let path = t.bin.clone().into_os_string();
    let home = t.home.clone().into_os_string();
    let env = move |name: &str| match name {
        "PATH" => Some(path.clone()),
        "HOME" => Some(home.clone()),
        "SECRET_TOKEN" => Some("x".into()),
        _ => None,
    };
    let world = World {
        env: &env,
        cwd: t.workspace.clone(),
        temp: t.temp.clone(),
    };
    let args = vec![
        "--flag".to_owned(),
        "node_modules/pkg/dist/index.js".to_owned(),
    ];
    let config_env: BTreeMap<String, String> = [("API_MODE".to_owned(), "x".to_owned())].into();
    let settings = SandboxConfig {
        read: vec!["~/data".into()],
        write: vec!["out".into()],
        network: false,
    };
    let server = Server {
        name: "fs",
        program: "srv",
        args: &args,
        env: &config_env,
        cwd: None,
    };
    let launch = plan(&server, &settings, &world).unwrap();
    let read = &launch.policy.read;
    for want in [
        PathBuf::from("/usr"),
        PathBuf::from("/proc"),
        t.bin.clone(),
        // The program's canonical parent, through the PATH symlink.
        t.bin.parent().unwrap().join("lib"),
        // The script argument inside node_modules: the directory holding it.
        t.workspace.clone(),
        t.home.join("data"),
    ] {
        assert!(read.contains(&want), "{want:?} not in {read:?}");
    }
    assert!(!read.contains(&t.home), "{read:?}");
    assert_eq!(launch.program, t.bin.join("srv").into_os_string());
    // Writes: the private temp dir (also TMPDIR) and `write`, from the workspace.
    let tmpdir = &launch.env[OsStr::new("TMPDIR")];
    assert!(Path::new(tmpdir).starts_with(&t.temp), "{tmpdir:?}");
    assert!(launch.policy.write.contains(&PathBuf::from(tmpdir)));
    assert!(launch.policy.write.contains(&t.workspace.join("out")));
    assert!(!launch.policy.network);
    // The environment: the base list, TMPDIR and the server's own env; no secrets.
    assert_eq!(launch.policy.env, ["API_MODE", "HOME", "PATH", "TMPDIR"]);
    assert!(!launch.env.contains_key(OsStr::new("SECRET_TOKEN")));
}

#[test]
fn scripts_outside_node_modules_give_their_parent() {
    let t = tree();
    let script = t.home.join("mcp/server.py");
    std::fs::create_dir_all(script.parent().unwrap()).unwrap();
    std::fs::write(&script, "").unwrap();
    let args = vec![script.display().to_string(), "not-a-file".to_owned()];
    let trees = install_tree(None, &args, &t.workspace);
    assert_eq!(trees, [t.home.join("mcp")]);
    let program = resolve_program("srv", &t.workspace, Some(t.bin.as_os_str()));
    assert_eq!(program, Some(t.bin.join("srv")));
    assert_eq!(
        resolve_program("nope", &t.workspace, Some(t.bin.as_os_str())),
        None
    );
}

#[test]
fn a_version_manager_shim_or_a_venv_brings_its_root() {
    let t = tree();
    let shim = t.home.join(".pyenv/shims/python3");
    let venv_python = t.workspace.join(".venv/bin/python");
    for file in [&shim, &venv_python] {
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, "").unwrap();
    }
    std::fs::write(t.workspace.join(".venv/pyvenv.cfg"), "").unwrap();
    let trees = install_tree(Some(&shim), &[], &t.workspace);
    assert_eq!(trees, [t.home.join(".pyenv/shims"), t.home.join(".pyenv")]);
    let trees = install_tree(Some(&venv_python), &[], &t.workspace);
    assert_eq!(
        trees,
        [t.workspace.join(".venv/bin"), t.workspace.join(".venv")]
    );
}
