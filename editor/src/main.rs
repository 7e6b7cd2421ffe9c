//! hexsight-editor: paint hex maps and see sight lines live (work in progress).

fn main() {
    eprintln!("hexsight-editor: not built yet");
}
