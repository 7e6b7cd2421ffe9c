//! hexsight-editor: paint hex maps and see sight lines live.
//!
//! `hexsight-editor [MAP] [--layer FILE]... [--select HEX] [--los FROM TO] [--overlay viewshed|blind|exposure|spotting|diff]
//! [--export-png OUT] [--export-scale N] [--export-svg OUT] [--export-background] [--quit]
//! [--browse open|save-as|png|background]`
//! The options set up a view at start and export it (screenshots, demos, CI);
//! `--browse` opens the file browser at the map's folder (for screenshots of it).

#![forbid(unsafe_code)]

use hexsight_editor::EditorApp;
use hexsight_editor::app::{Dialog, PathPurpose};
use hexsight_editor::canvas::Overlay;
use hexsight_editor::files::{Store, data_dir};
use std::path::PathBuf;
use std::process::ExitCode;

struct Args {
    map: Option<PathBuf>,
    select: Option<String>,
    los: Option<(String, String)>,
    overlay: Option<Overlay>,
    layers: Vec<PathBuf>,
    script: hexsight_editor::app::Script,
    scale: f32,
    browse: Option<PathPurpose>,
    export_background: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        map: None,
        select: None,
        los: None,
        overlay: None,
        layers: Vec::new(),
        script: Default::default(),
        scale: 1.0,
        browse: None,
        export_background: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "-h" | "--help" => {
                println!(
                    "usage: hexsight-editor [MAP] [--select HEX] [--los FROM TO] [--layer FILE]... [--overlay viewshed|blind|exposure|spotting|diff] [--export-png OUT] [--export-scale N] [--export-svg OUT] [--export-background] [--quit] [--browse open|save-as|png|background]"
                );
                std::process::exit(0);
            }
            "--export-png" => {
                a.script.png = Some(PathBuf::from(it.next().ok_or("--export-png needs a path")?))
            }
            "--export-svg" => {
                a.script.svg = Some(PathBuf::from(it.next().ok_or("--export-svg needs a path")?))
            }
            "--export-scale" => {
                let v = it.next().ok_or("--export-scale needs a number")?;
                a.scale = match v.parse::<f32>() {
                    Ok(s) if (0.25..=8.0).contains(&s) => s,
                    _ => return Err(format!("--export-scale {v}: give a number from 0.25 to 8")),
                };
            }
            "--quit" => a.script.quit = true,
            "--export-background" => a.export_background = true,
            "--browse" => {
                a.browse = Some(match it.next().as_deref() {
                    Some("open") => PathPurpose::Open,
                    Some("save-as") => PathPurpose::SaveAs,
                    Some("png") => PathPurpose::Png,
                    Some("background") => PathPurpose::Background,
                    other => {
                        return Err(format!(
                            "unknown browser {other:?} (open, save-as, png, background)"
                        ));
                    }
                })
            }
            "--layer" => a
                .layers
                .push(PathBuf::from(it.next().ok_or("--layer needs a path")?)),
            "--select" => a.select = Some(it.next().ok_or("--select needs a hex label")?),
            "--los" => {
                let from = it.next().ok_or("--los needs two hex labels")?;
                let to = it.next().ok_or("--los needs two hex labels")?;
                a.los = Some((from, to));
            }
            "--overlay" => {
                a.overlay = Some(match it.next().as_deref() {
                    Some("viewshed") => Overlay::Viewshed,
                    Some("blind") => Overlay::Blind,
                    Some("exposure") => Overlay::Exposure,
                    Some("spotting") => Overlay::Spotting,
                    Some("diff") => Overlay::Diff,
                    other => {
                        return Err(format!(
                            "unknown overlay {other:?} (viewshed, blind, exposure, spotting, diff)"
                        ));
                    }
                })
            }
            s if s.starts_with('-') => return Err(format!("unknown option {s}")),
            s => a.map = Some(PathBuf::from(s)),
        }
    }
    Ok(a)
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("hexsight-editor: {e}");
            return ExitCode::from(2);
        }
    };
    let mut app = EditorApp::new(Store::new(data_dir()), args.map);
    for l in &args.layers {
        app.load_layer(l);
    }
    let map = app.doc.map();
    let hex = |l: &str| map.parse_hex(l);
    if let Some((f, t)) = &args.los {
        app.line_of_sight.from = hex(f);
        app.line_of_sight.to = hex(t);
        app.selected = app.line_of_sight.from;
        app.tool = hexsight_editor::tools::Tool::Los;
    }
    if let Some(s) = &args.select {
        app.selected = hex(s);
    }
    app.overlays.shown = args.overlay;
    if let Some(purpose) = args.browse {
        let start = match (&app.doc.path, purpose) {
            (Some(p), PathPurpose::Png) => p.with_extension("png").display().to_string(),
            (Some(p), _) => p.display().to_string(),
            (None, _) => String::new(),
        };
        app.dialog = Some(Dialog::Path {
            purpose,
            text: start,
        });
    }
    app.export_scale = args.scale;
    app.export_background = args.export_background;
    let s = &args.script;
    if s.png.is_some() || s.svg.is_some() || s.quit {
        app.script = Some(args.script);
    }
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title("hexsight editor")
            .with_inner_size([1400.0, 860.0])
            .with_min_inner_size([640.0, 400.0])
            .with_drag_and_drop(true),
        ..Default::default()
    };
    match eframe::run_native(
        "hexsight-editor",
        options,
        Box::new(|_cc| Ok(Box::new(app))),
    ) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("hexsight-editor: {e}");
            ExitCode::FAILURE
        }
    }
}
