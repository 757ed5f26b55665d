//! [`DxilModule`]: the typed view of a module's DXIL metadata.

use std::fmt;

use dxil_module::{FuncId, Function, InstId, MdId, Module};
use serde::Serialize;

use crate::annotations::{TypeAnnotations, read_type_annotations};
use crate::dxop::{DxOpCall, DxOpTable};
use crate::entry::{EntryPoint, int_array, read_entry};
use crate::enums::ShaderKind;
use crate::error::{Error, ErrorKind, Result};
use crate::flags::ShaderFlags;
use crate::md::Md;
use crate::resource::{Resource, ResourceRef, Resources, read_resources};
use crate::ser;

/// Named metadata DXIL defines.
pub mod names {
    pub const VERSION: &str = "dx.version";
    pub const VALIDATOR_VERSION: &str = "dx.valver";
    pub const SHADER_MODEL: &str = "dx.shaderModel";
    pub const ENTRY_POINTS: &str = "dx.entryPoints";
    pub const RESOURCES: &str = "dx.resources";
    pub const TYPE_ANNOTATIONS: &str = "dx.typeAnnotations";
    pub const VIEW_ID_STATE: &str = "dx.viewIdState";
    pub const LLVM_IDENT: &str = "llvm.ident";
}

/// Bound on `!dx.viewIdState`'s array; real ones hold a few hundred words.
const MAX_VIEW_ID_WORDS: u64 = 1 << 20;

/// A `major.minor` version (`!dx.version`, `!dx.valver`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Version {
    pub major: u32,
    pub minor: u32,
}

impl Version {
    pub const fn new(major: u32, minor: u32) -> Version {
        Version { major, minor }
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// `!dx.shaderModel`: the stage (or `lib`) and model version.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct ShaderModel {
    pub kind: ShaderKind,
    pub major: u32,
    pub minor: u32,
}

impl ShaderModel {
    /// The stage names `!dx.shaderModel` uses, with their kinds.
    pub const STAGE_NAMES: [(&'static str, ShaderKind); 9] = [
        ("ps", ShaderKind::Pixel),
        ("vs", ShaderKind::Vertex),
        ("gs", ShaderKind::Geometry),
        ("hs", ShaderKind::Hull),
        ("ds", ShaderKind::Domain),
        ("cs", ShaderKind::Compute),
        ("lib", ShaderKind::Library),
        ("ms", ShaderKind::Mesh),
        ("as", ShaderKind::Amplification),
    ];

    pub fn stage_name(&self) -> &'static str {
        ShaderModel::STAGE_NAMES
            .iter()
            .find(|(_, k)| *k == self.kind)
            .map_or("??", |(n, _)| n)
    }

    /// The target profile (`cs_6_6`, `lib_6_3`).
    pub fn profile(&self) -> String {
        format!("{}_{}_{}", self.stage_name(), self.major, self.minor)
    }

    pub fn is_library(&self) -> bool {
        self.kind == ShaderKind::Library
    }

    pub fn is_at_least(&self, major: u32, minor: u32) -> bool {
        (self.major, self.minor) >= (major, minor)
    }

    /// The DXIL version this model requires (SM 6.N pairs with DXIL 1.N).
    pub fn dxil_version(&self) -> Version {
        Version::new(self.major.saturating_sub(5), self.minor)
    }
}

impl fmt::Display for ShaderModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}_{}_{}", self.stage_name(), self.major, self.minor)
    }
}

/// A tagged property this crate does not decode: its tag, the value item, and the value as an
/// integer when it is an integer constant.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RawProperty {
    pub tag: u32,
    #[serde(serialize_with = "ser::opt_md")]
    pub value: Option<MdId>,
    pub int: Option<i64>,
}

impl RawProperty {
    pub(crate) fn new(md: Md<'_>, tag: u32, value: Option<MdId>) -> RawProperty {
        RawProperty {
            tag,
            value,
            int: value.and_then(|v| md.sint(v)),
        }
    }
}

/// The DXIL view of a module: shader model, versions, entry points, resources and the other
/// `dx.*` metadata, plus the `dx.op` callee table for decoding calls.
///
/// Built once per module by [`DxilModule::from_module`]; it does not borrow the module, and
/// every id in it (functions, globals, types, metadata) refers to the module it was built from.
#[derive(Clone, Debug, Serialize)]
pub struct DxilModule {
    pub shader_model: ShaderModel,
    /// `!dx.version`; `None` when absent.
    pub dxil_version: Option<Version>,
    /// `!dx.valver`; `None` when absent (the validator then assumes 1.0).
    pub validator_version: Option<Version>,
    /// `!llvm.ident`: the compiler's identification string.
    pub compiler: Option<String>,
    /// `!dx.entryPoints`, in order. A library's first entry is usually the module-level one
    /// (no function) that carries the module's shader flags and resources.
    pub entry_points: Vec<EntryPoint>,
    /// `!dx.resources` (or, when absent, the first entry's resources tuple).
    pub resources: Resources,
    /// `!dx.viewIdState`'s words, raw.
    pub view_id_state: Option<Vec<u32>>,
    pub type_annotations: TypeAnnotations,
    #[serde(skip)]
    dx_ops: DxOpTable,
}

impl DxilModule {
    /// Decodes the DXIL metadata of `module`.
    ///
    /// Fails when `!dx.shaderModel` or `!dx.entryPoints` is missing or malformed, when a
    /// non-library has other than one entry point, or when any record is malformed; the error
    /// names the metadata node and field. Unknown tags and enum values are kept, not rejected.
    pub fn from_module(module: &Module) -> Result<DxilModule> {
        DxilModule::read(module, true, true)
    }

    /// [`DxilModule::from_module`] with an empty `dx.op` table ([`DxilModule::dx_ops`]): a container
    /// assembler reads the metadata only, and classifying every `dx.op` function by name showed in the
    /// SPIR-V translator's profile, which assembles a container per translation.
    pub fn for_assembly(module: &Module) -> Result<DxilModule> {
        DxilModule::read(module, true, false)
    }

    /// [`DxilModule::from_module`] without the parts a translator never reads: `type_annotations` stays empty and
    /// `view_id_state` and `compiler` stay `None`, so errors in those parts are not reported either. The type
    /// annotations copy every struct, field and parameter name into its own string, which is most of the view's
    /// cost for a shader with constant buffers; the C API reads a view per parsed blob.
    pub fn for_translation(module: &Module) -> Result<DxilModule> {
        DxilModule::read(module, false, true)
    }

    /// `full`: also the type annotations, the view-id state and the compiler name; `dx_ops`: the `dx.op`
    /// table.
    fn read(module: &Module, full: bool, dx_ops: bool) -> Result<DxilModule> {
        let budget = std::cell::Cell::new(Md::budget_for(module));
        let md = Md::budgeted(module, &budget);
        let shader_model = read_shader_model(md)?;
        let dxil_version = read_version(md, names::VERSION)?;
        let validator_version = read_version(md, names::VALIDATOR_VERSION)?;
        let compiler = if !full {
            None
        } else {
            module
                .metadata
                .named_operands_of(names::LLVM_IDENT)
                .first()
                .and_then(|&id| md.node_ops(id))
                .and_then(|ops| ops.first())
                .filter(|&&o| o != 0)
                .and_then(|&o| md.string(MdId(o - 1)))
                .map(|s| String::from_utf8_lossy(s).into_owned())
        };

        let entries = module
            .metadata
            .named(names::ENTRY_POINTS)
            .ok_or_else(|| missing(names::ENTRY_POINTS))?;
        let entries = module.metadata.named_operands(entries);
        let mut entry_points = Vec::with_capacity(entries.len());
        for &id in entries {
            entry_points.push(read_entry(md, id, shader_model.kind)?);
        }
        if !shader_model.is_library() && entry_points.len() != 1 {
            return Err(Error::new(
                ErrorKind::Invalid,
                "!dx.entryPoints",
                None,
                None,
                format!(
                    "{} entry points; a {} module has exactly one",
                    entry_points.len(),
                    shader_model.stage_name()
                ),
            ));
        }

        let resources_tuple = match module.metadata.named(names::RESOURCES) {
            Some(n) => Some(*single_operand(module, n, names::RESOURCES)?),
            None => entry_points.iter().find_map(|e| e.resources),
        };
        let resources = match resources_tuple {
            Some(t) => read_resources(md, t)?,
            None => Resources::default(),
        };

        let view_id_state = match module.metadata.named(names::VIEW_ID_STATE) {
            Some(n) if full => Some(read_view_id_state(
                md,
                *single_operand(module, n, names::VIEW_ID_STATE)?,
            )?),
            _ => None,
        };
        let type_annotations = match module.metadata.named(names::TYPE_ANNOTATIONS) {
            Some(n) if full => read_type_annotations(md, module.metadata.named_operands(n))?,
            _ => TypeAnnotations::default(),
        };

        Ok(DxilModule {
            shader_model,
            dxil_version,
            validator_version,
            compiler,
            entry_points,
            resources,
            view_id_state,
            type_annotations,
            dx_ops: if dx_ops {
                DxOpTable::new(module)
            } else {
                DxOpTable::default()
            },
        })
    }

    pub fn is_library(&self) -> bool {
        self.shader_model.is_library()
    }

    /// The validator version, 1.0 when `!dx.valver` is absent.
    pub fn effective_validator_version(&self) -> Version {
        self.validator_version.unwrap_or(Version::new(1, 0))
    }

    /// The entry point of a non-library (its only entry), or a library's first entry with a
    /// function.
    pub fn entry_point(&self) -> Option<&EntryPoint> {
        if self.is_library() {
            self.entry_points.iter().find(|e| e.function.is_some())
        } else {
            self.entry_points.first()
        }
    }

    /// The entry point whose function is `f`.
    pub fn entry_for_function(&self, f: FuncId) -> Option<&EntryPoint> {
        self.entry_points.iter().find(|e| e.function == Some(f))
    }

    pub fn entry_by_name(&self, name: &str) -> Option<&EntryPoint> {
        self.entry_points.iter().find(|e| e.name == name)
    }

    /// The module's shader flags: the first entry's (a library's module-level entry, the only
    /// entry otherwise); empty when it has none.
    pub fn shader_flags(&self) -> ShaderFlags {
        self.entry_points
            .first()
            .and_then(|e| e.properties.shader_flags)
            .unwrap_or_default()
    }

    pub fn resource(&self, r: ResourceRef) -> Option<&Resource> {
        self.resources.get(r)
    }

    /// The `dx.op` callee table of the module.
    pub fn dx_ops(&self) -> &DxOpTable {
        &self.dx_ops
    }

    /// Decodes instruction `inst` of `func` as a `dx.op` call (see [`DxOpTable::call`]).
    pub fn dx_op<'a>(
        &self,
        module: &'a Module,
        func: &'a Function,
        inst: InstId,
    ) -> Option<DxOpCall<'a>> {
        self.dx_ops.call(module, func, inst)
    }
}

#[cold]
fn missing(name: &'static str) -> Error {
    Error::new(
        ErrorKind::Missing,
        "module",
        None,
        None,
        format!("no !{name} named metadata"),
    )
}

fn single_operand<'n>(
    module: &'n Module,
    n: &dxil_module::NamedMd,
    name: &'static str,
) -> Result<&'n MdId> {
    match module.metadata.named_operands(n) {
        [only] => Ok(only),
        ops => Err(Error::new(
            ErrorKind::Malformed,
            "named metadata",
            None,
            Some(name.into()),
            format!("{} operands, expected 1", ops.len()),
        )),
    }
}

fn read_shader_model(md: Md<'_>) -> Result<ShaderModel> {
    let named = md
        .module
        .metadata
        .named(names::SHADER_MODEL)
        .ok_or_else(|| missing(names::SHADER_MODEL))?;
    let n = md.node(
        *single_operand(md.module, named, names::SHADER_MODEL)?,
        "!dx.shaderModel",
    )?;
    n.expect_len(3)?;
    let stage = n.string_at(0, "stage")?;
    let kind = ShaderModel::STAGE_NAMES
        .iter()
        .find(|(s, _)| *s == stage)
        .map(|(_, k)| *k)
        .ok_or_else(|| {
            n.error(
                ErrorKind::Invalid,
                "stage",
                format!("unknown shader stage {stage:?}"),
            )
        })?;
    Ok(ShaderModel {
        kind,
        major: n.u32_at(1, "major")?,
        minor: n.u32_at(2, "minor")?,
    })
}

fn read_version(md: Md<'_>, name: &'static str) -> Result<Option<Version>> {
    let Some(named) = md.module.metadata.named(name) else {
        return Ok(None);
    };
    let context = if name == names::VERSION {
        "!dx.version"
    } else {
        "!dx.valver"
    };
    let n = md.node(*single_operand(md.module, named, name)?, context)?;
    n.expect_len(2)?;
    Ok(Some(Version::new(
        n.u32_at(0, "major")?,
        n.u32_at(1, "minor")?,
    )))
}

fn read_view_id_state(md: Md<'_>, id: MdId) -> Result<Vec<u32>> {
    let n = md.node(id, "!dx.viewIdState")?;
    let item = n.required(0, "state")?;
    // Wider elements are accepted while they fit 32 bits; none is truncated.
    md.value(item)
        .and_then(|(ty, v)| int_array(md.module, ty, v, MAX_VIEW_ID_WORDS))
        .and_then(|words| words.into_iter().map(|w| u32::try_from(w).ok()).collect())
        .ok_or_else(|| {
            n.error(
                ErrorKind::Malformed,
                "state",
                "expected an i32 array constant",
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::enums::{ComponentType, ResourceClass, ResourceKind, SamplerKind};
    use crate::resource::{ClassFields, ResourceSymbol};
    use crate::testutil::{Builder, compute_fixture};

    #[test]
    fn compute_module_decodes() {
        let (b, fx) = compute_fixture();
        let d = DxilModule::from_module(&b.m).unwrap();
        assert_eq!(d.shader_model.profile(), "cs_6_6");
        assert_eq!(d.shader_model.dxil_version(), Version::new(1, 6));
        assert_eq!(d.dxil_version, Some(Version::new(1, 6)));
        assert_eq!(d.validator_version, Some(Version::new(1, 8)));
        assert_eq!(d.effective_validator_version().to_string(), "1.8");
        assert!(!d.is_library());
        let e = d.entry_point().unwrap();
        assert_eq!(e.function, Some(fx.main));
        assert_eq!(e.name, "main");
        assert_eq!(e.node, fx.entry);
        assert_eq!(e.shader_kind, ShaderKind::Compute);
        assert_eq!(e.properties.num_threads, Some([8, 4, 1]));
        assert_eq!(e.properties.thread_group_size(), Some([8, 4, 1]));
        assert_eq!(e.properties.list, Some(fx.props));
        assert_eq!(d.shader_flags(), ShaderFlags(0x10 | 1 << 30));
        assert!(
            d.shader_flags()
                .contains(ShaderFlags::RESOURCE_DESCRIPTOR_HEAP_INDEXING)
        );
        assert!(e.signatures.is_empty());
        assert_eq!(
            d.entry_for_function(fx.main).map(|e| e.node),
            Some(fx.entry)
        );
        assert!(d.entry_by_name("main").is_some());

        let r = &d.resources;
        assert_eq!(r.len(), 4);
        let srv = &r.srvs[0];
        assert_eq!(srv.node, fx.srv);
        assert_eq!(srv.class, ResourceClass::SRV);
        assert_eq!(srv.kind, ResourceKind::Texture2D);
        assert_eq!(srv.symbol, ResourceSymbol::Undef);
        assert!(srv.is_unbounded());
        assert_eq!(srv.upper_bound(), u32::MAX);
        assert_eq!(srv.tags.element_type, Some(ComponentType::F32));
        assert_eq!(srv.component_count(&b.m), 4);
        assert_eq!(srv.hlsl_type_name(), "Texture2D");
        assert_eq!(srv.binding_name(), "t0");
        // What DXC's annotateHandle carries for it: kind 2, F32 x 4.
        assert_eq!(srv.properties(&b.m).raw, [2, 9 | 4 << 8]);

        let uav = &r.uavs[0];
        assert_eq!(uav.node, fx.uav);
        assert_eq!(uav.name, "Out");
        assert_eq!((uav.space, uav.lower_bound, uav.range_size), (2, 1, 1));
        assert!(uav.has_counter());
        assert!(!uav.is_rasterizer_ordered());
        assert_eq!(uav.binding_name(), "u1,space2");
        assert_eq!(uav.hlsl_type_name(), "RWStructuredBuffer");
        assert_eq!(uav.tags.structure_stride, Some(16));
        assert_eq!(uav.properties(&b.m).raw, [12 | 1 << 12 | 1 << 15, 16]);

        let cbv = &r.cbuffers[0];
        assert_eq!(cbv.fields, ClassFields::CBuffer { size_in_bytes: 16 });
        assert_eq!(cbv.symbol, ResourceSymbol::None);
        assert_eq!(cbv.properties(&b.m).raw, [13, 16]);
        let s = &r.samplers[0];
        assert_eq!(s.sampler_kind(), Some(SamplerKind::Comparison));
        assert_eq!(s.hlsl_type_name(), "SamplerComparisonState");
        assert_eq!(s.properties(&b.m).raw, [14 | 1 << 15, 0]);

        let json = serde_json::to_value(&d).unwrap();
        assert_eq!(json["shader_model"]["kind"], "Compute");
        assert_eq!(json["entry_points"][0]["properties"]["num_threads"][1], 4);
        assert_eq!(json["resources"]["uavs"][0]["kind"], "StructuredBuffer");
        assert_eq!(
            json["entry_points"][0]["properties"]["shader_flags"]["names"][1],
            "ResourceDescriptorHeapIndexing"
        );
    }

    #[test]
    fn missing_and_malformed_metadata_is_reported_with_its_node() {
        let b = Builder::new();
        let e = DxilModule::from_module(&b.m).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Missing);
        assert!(e.to_string().contains("dx.shaderModel"), "{e}");

        let mut b = Builder::new();
        b.shader_model("xs", 6, 0);
        let e = DxilModule::from_module(&b.m).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Invalid);
        assert_eq!(e.field(), Some("stage"));
        assert!(e.to_string().contains("\"xs\""), "{e}");

        // A record whose space is a string.
        let (mut b, fx) = compute_fixture();
        let bad = b.str("zero");
        let ops = b.m.metadata.node_operands(fx.uav).collect::<Vec<_>>();
        let mut ops = ops;
        ops[3] = Some(bad);
        let rec = b.node(&ops);
        let uavs = b.node(&[Some(rec)]);
        let tuple = b.node(&[None, Some(uavs), None, None]);
        b.m.metadata.named.retain(|n| n.name != "dx.resources");
        b.named("dx.resources", &[tuple]);
        let e = DxilModule::from_module(&b.m).unwrap_err();
        assert_eq!(e.node(), Some(rec));
        assert_eq!(e.field(), Some("space"));
        assert_eq!(
            e.to_string(),
            format!(
                "dx.resources UAV record !{}, field `space`: expected an integer constant",
                rec.0
            )
        );

        // Two entry points in a compute module.
        let (mut b, fx) = compute_fixture();
        b.m.metadata.named.retain(|n| n.name != "dx.entryPoints");
        b.named("dx.entryPoints", &[fx.entry, fx.entry]);
        let e = DxilModule::from_module(&b.m).unwrap_err();
        assert!(e.to_string().contains("2 entry points"), "{e}");

        // Odd property list.
        let (mut b, fx) = compute_fixture();
        let t = b.i32(0);
        let props = b.node(&[Some(t)]);
        let fmd = b.function_md(fx.main);
        let name = b.str("main");
        let entry = b.node(&[Some(fmd), Some(name), None, None, Some(props)]);
        b.m.metadata.named.retain(|n| n.name != "dx.entryPoints");
        b.named("dx.entryPoints", &[entry]);
        let e = DxilModule::from_module(&b.m).unwrap_err();
        assert_eq!(e.node(), Some(props));
        assert_eq!(e.kind(), ErrorKind::Malformed);
    }

    #[test]
    fn library_entries_view_id_state_and_ident() {
        let mut b = Builder::new();
        b.shader_model("lib", 6, 3);
        let void = b.void();
        let f = b.function("\u{1}?RayGen@@YAXXZ", void, &[]);
        let flags_tag = b.i32(0);
        let flags = b.int(64, 16);
        let mprops = b.node(&[Some(flags_tag), Some(flags)]);
        let empty = b.str("");
        let module_entry = b.node(&[None, Some(empty), None, None, Some(mprops)]);
        let kind_tag = b.i32(8);
        let kind = b.i32(7);
        let fprops = b.node(&[Some(kind_tag), Some(kind)]);
        let fmd = b.function_md(f);
        let fname = b.str("\u{1}?RayGen@@YAXXZ");
        let fentry = b.node(&[Some(fmd), Some(fname), None, None, Some(fprops)]);
        b.named("dx.entryPoints", &[module_entry, fentry]);
        let i32t = b.int_ty(32);
        let arr = b.ty(dxil_module::TypeData::Array { len: 3, elem: i32t });
        let data = b.constant(
            arr,
            dxil_module::ConstKey::Words(1, vec![1, 2, 0xffff_ffff]),
        );
        let state = b.value(arr, data);
        let view = b.node(&[Some(state)]);
        b.named("dx.viewIdState", &[view]);
        let ident = b.str("dxc 1.8");
        let ident_node = b.node(&[Some(ident)]);
        b.named("llvm.ident", &[ident_node]);

        let d = DxilModule::from_module(&b.m).unwrap();
        assert!(d.is_library());
        assert_eq!(d.entry_points.len(), 2);
        assert_eq!(d.entry_points[0].shader_kind, ShaderKind::Library);
        assert_eq!(d.entry_points[0].function, None);
        assert_eq!(d.entry_points[1].shader_kind, ShaderKind::RayGeneration);
        assert_eq!(d.entry_point().map(|e| e.function), Some(Some(f)));
        assert_eq!(d.shader_flags(), ShaderFlags(16));
        assert_eq!(d.view_id_state, Some(vec![1, 2, 0xffff_ffff]));

        // An i64 state whose words do not fit 32 bits is refused, not truncated.
        let i64t = b.int_ty(64);
        let arr = b.ty(dxil_module::TypeData::Array { len: 1, elem: i64t });
        let data = b.constant(arr, dxil_module::ConstKey::Words(2, vec![1 << 32]));
        let state = b.value(arr, data);
        let view = b.node(&[Some(state)]);
        let i =
            b.m.metadata
                .named
                .iter()
                .position(|n| n.name == "dx.viewIdState")
                .unwrap();
        b.m.metadata.set_named_operands(i, &[view]);
        let e = DxilModule::from_module(&b.m).unwrap_err();
        assert!(e.to_string().contains("dx.viewIdState"), "{e}");
        assert_eq!(d.compiler.as_deref(), Some("dxc 1.8"));
        assert!(d.resources.is_empty());
    }

    #[test]
    fn shared_nodes_cannot_amplify_the_decoded_view() {
        // One library entry with a 100 kB name, listed 2000 times: 200 MB of decoded names from
        // a module of about 100 kB, were each reference decoded without a budget.
        let mut b = Builder::new();
        b.shader_model("lib", 6, 3);
        let void = b.void();
        let f = b.function("f", void, &[]);
        let fmd = b.function_md(f);
        let name = b.str(&"n".repeat(100_000));
        let entry = b.node(&[Some(fmd), Some(name), None, None, None]);
        b.named("dx.entryPoints", &[entry; 2000]);
        let e = DxilModule::from_module(&b.m).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Limit, "{e}");
        assert_eq!(e.node(), Some(name), "{e}");

        // A handful of references is fine.
        let mut b = Builder::new();
        b.shader_model("lib", 6, 3);
        let void = b.void();
        let f = b.function("f", void, &[]);
        let fmd = b.function_md(f);
        let name = b.str(&"n".repeat(100_000));
        let entry = b.node(&[Some(fmd), Some(name), None, None, None]);
        b.named("dx.entryPoints", &[entry; 8]);
        assert_eq!(DxilModule::from_module(&b.m).unwrap().entry_points.len(), 8);
    }
}
