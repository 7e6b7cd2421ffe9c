//! The real editor binary in a real (virtual) window: an edit, the autosave,
//! SIGKILL in the middle of the next edit, and a restart that offers the
//! autosaved work, whose recovery saves back the edited map.
//!
//! Runs under Xvfb (`xvfb-run`) with `xdotool` for the pointer and keys, as a
//! user would: no test hook in the editor. Without `xvfb-run` or `xdotool`
//! (CI installs both, see `.ci/run`) it prints why and passes.

use hexsight_analysis::Map;
use hexsight_analysis::map::file::same_content;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const EDITOR: &str = env!("CARGO_BIN_EXE_hexsight-editor");
/// The window the editor opens (main.rs) and the screen it gets. `-noreset`:
/// by default the server resets when its last client leaves (the killed
/// editor), and a client connecting during the reset (the restarted editor)
/// is refused.
const SCREEN: &str = "-screen 0 1400x860x24 -noreset";
/// The middle of the canvas between the tool panel (230) and the inspector (320),
/// below the menu bar and above the status bar: a hex of the fitted map.
const CANVAS_MIDDLE: (u32, u32) = (655, 430);
/// Somewhere else on the map, for the edit that is interrupted.
const ELSEWHERE: (u32, u32) = (560, 330);

fn have(tool: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn wait_for<T>(what: &str, secs: u64, mut f: impl FnMut() -> Option<T>) -> T {
    let start = Instant::now();
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(
            start.elapsed() < Duration::from_secs(secs),
            "timed out after {secs} s waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// A virtual X display from `xvfb-run`, alive while its shell reads stdin:
/// dropping it closes that pipe, and xvfb-run stops the server.
struct Display {
    server: Child,
    env: Vec<(String, String)>,
}

impl Display {
    fn start(dir: &Path) -> Display {
        let env_file = dir.join("display.env");
        let server = Command::new("xvfb-run")
            .args([
                "-a",
                "-s",
                SCREEN,
                "sh",
                "-c",
                "env > \"$0.part\" && mv \"$0.part\" \"$0\"; exec cat >/dev/null",
            ])
            .arg(&env_file)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .expect("xvfb-run starts");
        let text = wait_for("the X display", 60, || {
            std::fs::read_to_string(&env_file).ok()
        });
        let env = text
            .lines()
            .filter_map(|l| l.split_once('='))
            .filter(|(k, _)| *k == "DISPLAY" || *k == "XAUTHORITY")
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect::<Vec<_>>();
        assert!(
            env.iter().any(|(k, _)| k == "DISPLAY"),
            "no DISPLAY in {text}"
        );
        Display { server, env }
    }

    fn command(&self, program: &str) -> Command {
        let mut c = Command::new(program);
        c.envs(self.env.iter().map(|(k, v)| (k, v)));
        c
    }

    /// Runs xdotool with these arguments; its output.
    fn xdotool(&self, args: &[&str]) -> Option<String> {
        let out = self.command("xdotool").args(args).output().ok()?;
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
    }
}

impl Drop for Display {
    fn drop(&mut self) {
        drop(self.server.stdin.take());
        let _ = self.server.wait();
    }
}

/// A running editor, killed with SIGKILL if the test ends early.
struct Editor {
    child: Child,
    window: String,
    log: PathBuf,
}

impl Editor {
    fn start(display: &Display, data: &Path, map: &Path, log: PathBuf) -> Editor {
        let child = display
            .command(EDITOR)
            .arg(map)
            .env("HEXSIGHT_EDITOR_HOME", data)
            // Software rendering, as in editor/scripts/screenshot.sh.
            .env("LIBGL_ALWAYS_SOFTWARE", "1")
            .env("WGPU_BACKEND", "gl")
            .stdout(std::fs::File::create(&log).unwrap())
            .stderr(std::fs::File::create(log.with_extension("err")).unwrap())
            .spawn()
            .expect("the editor starts");
        let mut e = Editor {
            child,
            window: String::new(),
            log,
        };
        e.window = wait_for("the editor's window", 90, || {
            if let Ok(Some(status)) = e.child.try_wait() {
                panic!("the editor exited early ({status}):\n{}", e.output());
            }
            display
                .xdotool(&["search", "--onlyvisible", "--name", "hexsight editor"])
                .and_then(|w| w.lines().next().map(str::to_string))
        });
        // A few frames: the layout settles and the map is fitted.
        std::thread::sleep(Duration::from_secs(2));
        display
            .xdotool(&["windowfocus", "--sync", &e.window])
            .expect("the window takes the keyboard");
        e
    }

    fn title(&self, display: &Display) -> String {
        display
            .xdotool(&["getwindowname", &self.window])
            .unwrap_or_default()
    }

    fn output(&self) -> String {
        let err = std::fs::read_to_string(self.log.with_extension("err")).unwrap_or_default();
        format!(
            "{}{err}",
            std::fs::read_to_string(&self.log).unwrap_or_default()
        )
    }

    fn sigkill(&mut self) {
        // Child::kill is SIGKILL on Unix; wait reaps it, so its pid is gone from /proc.
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }
}

impl Drop for Editor {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

fn recovery_files(data: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(data)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| {
                    p.file_name()
                        .is_some_and(|n| n.to_string_lossy().starts_with("recovery-"))
                })
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// The hexes (labels) whose cell differs between two maps of the same grid.
fn changed_hexes(a: &Map, b: &Map) -> Vec<String> {
    (0..a.len())
        .filter(|&i| a.cells()[i] != b.cells()[i])
        .map(|i| a.label(a.hex_of(i)))
        .collect()
}

#[test]
fn sigkill_mid_edit_then_restart_recovers_the_autosaved_map() {
    for tool in ["xvfb-run", "xdotool"] {
        if !have(tool) {
            println!(
                "SKIPPED sigkill_mid_edit_then_restart_recovers_the_autosaved_map: {tool} is not installed \
                 (apt-get install -y xvfb xauth xdotool)"
            );
            return;
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let map_path = dir.path().join("hill-112.json");
    let bundled = Path::new(env!("CARGO_MANIFEST_DIR")).join("../maps/hill-112.json");
    std::fs::copy(&bundled, &map_path).unwrap();
    let original_bytes = std::fs::read(&map_path).unwrap();
    let original = Map::load(&map_path).unwrap();
    let display = Display::start(dir.path());

    // 1. Edit: the level tool (L) raises the hex in the middle of the canvas by one.
    let mut first = Editor::start(&display, &data, &map_path, dir.path().join("first.log"));
    let (x, y) = (CANVAS_MIDDLE.0.to_string(), CANVAS_MIDDLE.1.to_string());
    display
        .xdotool(&[
            "mousemove",
            &x,
            &y,
            "sleep",
            "0.3",
            "key",
            "l",
            "sleep",
            "0.5",
            "click",
            "1",
        ])
        .expect("xdotool clicks");
    wait_for("the title to show unsaved changes", 20, || {
        first.title(&display).contains('•').then_some(())
    });

    // 2. The autosave (every 10 s while there are unsaved changes).
    let autosave = wait_for("the autosave", 40, || recovery_files(&data).pop());
    let autosaved = wait_for("a complete autosave", 10, || {
        let text = std::fs::read_to_string(&autosave).ok()?;
        let v: serde_json::Value = serde_json::from_str(&text).ok()?;
        Some(v["map"].as_str()?.to_string())
    });
    let autosaved_map = Map::from_json(&autosaved, &map_path).unwrap();
    let edited = changed_hexes(&original, &autosaved_map);
    assert_eq!(edited.len(), 1, "one hex raised, got {edited:?}");
    let h = original.parse_hex(&edited[0]).unwrap();
    assert_eq!(
        autosaved_map.cell(h).unwrap().level,
        original.cell(h).unwrap().level + 1,
        "{} raised by one",
        edited[0]
    );

    // 3. The next edit is under way (button held on another hex) when the editor is killed.
    let (x2, y2) = (ELSEWHERE.0.to_string(), ELSEWHERE.1.to_string());
    display
        .xdotool(&[
            "mousemove",
            &x2,
            &y2,
            "sleep",
            "0.3",
            "mousedown",
            "1",
            "sleep",
            "0.5",
        ])
        .expect("xdotool presses");
    first.sigkill();
    let _ = display.xdotool(&["mouseup", "1"]);
    assert_eq!(
        std::fs::read(&map_path).unwrap(),
        original_bytes,
        "the map file was never saved"
    );
    assert_eq!(
        recovery_files(&data),
        vec![autosave.clone()],
        "the autosave outlives the kill"
    );

    // 4. The next start offers it (a modal over the freshly opened, clean map);
    // Enter recovers it, as unsaved work with the map's own path.
    let second = Editor::start(&display, &data, &map_path, dir.path().join("second.log"));
    let title = second.title(&display);
    assert!(
        title.starts_with("hill-112.json") && !title.contains('•'),
        "the file opens clean under the offer: {title:?}\n{}",
        second.output()
    );
    display.xdotool(&["key", "Return"]).unwrap();
    wait_for("the recovered work (unsaved) in the title", 20, || {
        second.title(&display).contains('•').then_some(())
    });
    wait_for("the old autosave to go", 20, || {
        (!autosave.exists()).then_some(())
    });

    // 5. Ctrl+S writes it back to the map's file: the edited map, exactly the autosave.
    display.xdotool(&["key", "ctrl+s"]).unwrap();
    wait_for("the save (a clean title)", 20, || {
        (!second.title(&display).contains('•')).then_some(())
    });
    let saved = Map::load(&map_path).unwrap();
    assert!(
        same_content(&saved, &autosaved_map),
        "the saved map is the autosaved one"
    );
    assert_eq!(
        changed_hexes(&original, &saved),
        edited,
        "only the edit before the autosave, not the interrupted one"
    );
    assert!(
        recovery_files(&data).is_empty(),
        "a save clears the autosave"
    );
    display.xdotool(&["key", "ctrl+q"]).unwrap();
    let mut second = second;
    wait_for("the editor to quit", 20, || {
        second.child.try_wait().ok().flatten()
    });
    let _ = std::io::stdout().flush();
}
