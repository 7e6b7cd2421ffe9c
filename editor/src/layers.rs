//! The scenario layers of the open map: a list applied in order over the map
//! (`map::layer`), each on or off, each saved to its own file.
//!
//! Painting into a layer works on the map as seen through that layer; when the
//! stroke ends the layer is remade from the difference ([`Layer::recorded`]), so
//! the map file never holds a layer's change.

use hexsight_analysis::Map;
use hexsight_analysis::map::file::same_content;
use hexsight_analysis::map::layer::Layer;
use std::path::Path;
use std::sync::Arc;

/// One layer in the list: the parsed layer, its file text and whether it is applied.
#[derive(Clone)]
pub struct DocLayer {
    layer: Arc<Layer>,
    text: Arc<str>,
    /// Applied over the map.
    pub enabled: bool,
}

impl PartialEq for DocLayer {
    fn eq(&self, o: &DocLayer) -> bool {
        self.enabled == o.enabled && self.layer.path == o.layer.path && self.text == o.text
    }
}

impl DocLayer {
    /// An enabled layer.
    pub fn new(layer: Layer) -> DocLayer {
        DocLayer {
            text: layer.to_json().into(),
            layer: Arc::new(layer),
            enabled: true,
        }
    }

    /// The parsed layer.
    pub fn layer(&self) -> &Layer {
        &self.layer
    }

    /// The file it is saved to.
    pub fn path(&self) -> &Path {
        &self.layer.path
    }

    /// Its file text (what Save writes).
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The name shown in the list: the layer's own, else its file name.
    pub fn title(&self) -> String {
        match self.layer.name() {
            "" => self
                .path()
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            n => n.to_string(),
        }
    }
}

/// The layers in apply order.
#[derive(Clone, Default, PartialEq)]
pub struct Layers(Vec<DocLayer>);

impl std::ops::Deref for Layers {
    type Target = [DocLayer];
    fn deref(&self) -> &[DocLayer] {
        &self.0
    }
}

impl Layers {
    /// Adds a layer on top (applied last).
    pub fn push(&mut self, l: DocLayer) {
        self.0.push(l);
    }

    /// Removes layer `i`, if there is one.
    pub fn remove(&mut self, i: usize) {
        if i < self.0.len() {
            self.0.remove(i);
        }
    }

    /// Moves layer `i` one place earlier in the apply order.
    pub fn move_up(&mut self, i: usize) {
        if i > 0 && i < self.0.len() {
            self.0.swap(i - 1, i);
        }
    }

    /// Turns layer `i` on or off.
    pub fn set_enabled(&mut self, i: usize, on: bool) {
        if let Some(l) = self.0.get_mut(i) {
            l.enabled = on;
        }
    }

    fn replace(&mut self, i: usize, layer: Layer) {
        let enabled = self.0[i].enabled;
        self.0[i] = DocLayer {
            enabled,
            ..DocLayer::new(layer)
        };
    }
}

/// The enabled layers of `layers` applied in order over `map`; a layer that does
/// not apply is left out, and the first such failure's one-line message returned.
pub fn apply(map: &Map, layers: &[DocLayer]) -> (Map, Option<String>) {
    let mut out = map.clone();
    let mut error = None;
    for l in layers.iter().filter(|l| l.enabled) {
        match l.layer.apply(&out) {
            Ok(m) => out = m,
            Err(e) => {
                error.get_or_insert(e.to_string());
            }
        }
    }
    (out, error)
}

/// A stroke painting into one layer.
pub struct LayerPaint {
    /// The layer painted into.
    pub index: usize,
    /// The map under the layer (the map and the enabled layers before it).
    below: Map,
    /// The map through the layer when the stroke began.
    start: Map,
    /// The map through the layer, being painted.
    pub work: Map,
}

impl LayerPaint {
    /// Begins painting into layer `index`; the layer's error if it does not apply.
    pub fn start(
        map: &Map,
        layers: &Layers,
        index: usize,
    ) -> hexsight_analysis::Result<LayerPaint> {
        let (below, _) = apply(map, &layers[..index]);
        let work = layers[index].layer.apply(&below)?;
        Ok(LayerPaint {
            index,
            below,
            start: work.clone(),
            work,
        })
    }

    /// Records the stroke's change into its layer (left as it was if nothing changed).
    pub fn record(self, layers: &mut Layers) -> hexsight_analysis::Result<()> {
        if same_content(&self.start, &self.work) {
            return Ok(());
        }
        let l = layers[self.index].layer.recorded(&self.below, &self.work)?;
        layers.replace(self.index, l);
        Ok(())
    }
}

/// The map as shown, made again when the document's generation moves on.
#[derive(Default)]
pub struct Shown {
    generation: Option<u64>,
    map: Option<Map>,
    error: Option<String>,
}

impl Shown {
    /// The map with layers, or `None` when no layer is applied (the map is shown as it is).
    pub fn map(&self) -> Option<&Map> {
        self.map.as_ref()
    }

    /// The first layer that did not apply, in one line.
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// Shows a failure to record a stroke into its layer.
    pub fn fail(&mut self, e: String) {
        self.error = Some(e);
    }

    /// Remakes the shown map for `generation`: `map` with the enabled layers, or
    /// during a layer stroke (`work`: the layer and its work map) the work map
    /// with the enabled layers above that layer.
    pub fn refresh(
        &mut self,
        generation: u64,
        map: &Map,
        layers: &Layers,
        work: Option<(usize, &Map)>,
    ) {
        if self.generation == Some(generation) {
            return;
        }
        self.generation = Some(generation);
        let (base, above) = match work {
            Some((i, w)) => (w, &layers[i + 1..]),
            None => (map, &layers[..]),
        };
        if work.is_none() && !above.iter().any(|l| l.enabled) {
            self.map = None;
            self.error = None;
            return;
        }
        let (m, e) = apply(base, above);
        self.map = Some(m);
        self.error = e;
    }
}
