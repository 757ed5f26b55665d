//! Corpus checks: for every container of the shared corpus, the module's metadata decodes,
//! and what [`DxilModule`] says agrees with DXC's own listing `X.ll` (shader model, entry
//! names, thread-group sizes, shader flags, signature element names, every `!dx.resources`
//! record field and tag). Also: `SFI0` equals the feature bits of the shader flags, every
//! `dx.op` call of the listing decodes, and handles resolve to their creations.

#[path = "support/listing.rs"]
mod listing;

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use dxil_module::{InstId, Module, TypeData};
use dxil_shader::ops::OpCode;
use dxil_shader::resource::props;
use dxil_shader::{
    ClassFields, DxilModule, HandleInfo, HandleOrigin, HandleResolver, Resource, ResourceClass,
    ShaderKind, SignatureElement,
};
use listing::{Listing, Op};

#[derive(Default)]
struct Tally {
    containers: usize,
    no_program: usize,
    modules: usize,
    listings: usize,
    libraries: usize,
    entry_points: usize,
    resources: usize,
    signature_elements: usize,
    sfi0_equal: usize,
    sfi0_differs: usize,
    sfi0_optional_dropped: usize,
    calls_in_listings: usize,
    calls_decoded: usize,
    handle_operands: usize,
    handles_resolved: usize,
    handles_opaque: usize,
    annotations_checked: usize,
    annotations_differ: usize,
    decode_time: Duration,
    table_time: Duration,
    decode_pass_time: Duration,
    insts: usize,
    failures: Vec<String>,
    notes: BTreeMap<String, Vec<String>>,
}

impl Tally {
    fn fail(&mut self, msg: String) {
        self.failures.push(msg);
    }

    fn note(&mut self, kind: &str, example: String) {
        let v = self.notes.entry(kind.to_string()).or_default();
        v.push(example);
    }
}

#[test]
fn corpus_metadata_matches_listings() {
    let Some(root) = dxil_corpus::corpus_dir() else {
        return;
    };
    let files = dxil_corpus::containers(&root);
    assert!(!files.is_empty(), "no containers under {}", root.display());
    let mut t = Tally::default();
    for path in &files {
        let name = path
            .strip_prefix(&root)
            .unwrap_or(path)
            .display()
            .to_string();
        check_container(path, &name, &mut t);
    }
    println!(
        "corpus: {} containers ({} without a DXIL part), {} modules decoded ({} libraries) in {:?}",
        t.containers, t.no_program, t.modules, t.libraries, t.decode_time
    );
    println!(
        "timing: DxOpTable::new {:?} in all; decoding all {} instructions {:?} ({:.1} ns per instruction)",
        t.table_time,
        t.insts,
        t.decode_pass_time,
        t.decode_pass_time.as_nanos() as f64 / t.insts.max(1) as f64
    );
    println!(
        "listings compared: {}; entry points {}, resources {}, signature elements {}",
        t.listings, t.entry_points, t.resources, t.signature_elements
    );
    println!(
        "SFI0 == feature bits of the shader flags: {} equal, {} differ ({} with optional bits 40+ left out)",
        t.sfi0_equal, t.sfi0_differs, t.sfi0_optional_dropped
    );
    println!(
        "dx.op calls: {} in listings, {} decoded; handle operands {}: {} resolved to creations, {} opaque",
        t.calls_in_listings,
        t.calls_decoded,
        t.handle_operands,
        t.handles_resolved,
        t.handles_opaque
    );
    println!(
        "annotateHandle properties vs record properties: {} checked, {} differ",
        t.annotations_checked, t.annotations_differ
    );
    for (kind, examples) in &t.notes {
        println!("note: {kind}: {} cases, e.g.", examples.len());
        let shown = if std::env::var_os("DXIL_SHOW_ALL").is_some() {
            usize::MAX
        } else {
            3
        };
        for e in examples.iter().take(shown) {
            println!("    {e}");
        }
    }
    assert!(t.modules > 1800, "only {} modules decoded", t.modules);
    assert!(
        t.failures.is_empty(),
        "{} failures, first ones:\n{}",
        t.failures.len(),
        t.failures[..t.failures.len().min(30)].join("\n")
    );
}

fn check_container(path: &Path, name: &str, t: &mut Tally) {
    t.containers += 1;
    let bytes = std::fs::read(path).unwrap();
    let container = match dxil_container::Container::parse(&bytes) {
        Ok(c) => c,
        Err(e) => return t.fail(format!("{name}: container: {e}")),
    };
    let Some(program) = container.program() else {
        t.no_program += 1;
        return;
    };
    let program = match program {
        Ok(p) => p,
        Err(e) => return t.fail(format!("{name}: program part: {e}")),
    };
    let module = match dxil_module::read::read_module(
        program.bitcode,
        program.bitcode_byte_offset_in_container as u64,
    ) {
        Ok(m) => m,
        Err(e) => return t.fail(format!("{name}: module: {e}")),
    };
    let start = Instant::now();
    let dxil = match DxilModule::from_module(&module) {
        Ok(d) => d,
        Err(e) => return t.fail(format!("{name}: from_module: {e}")),
    };
    t.decode_time += start.elapsed();
    t.modules += 1;
    if dxil.is_library() {
        t.libraries += 1;
    }
    if let Err(e) = serde_json::to_string(&dxil) {
        t.fail(format!("{name}: serialize: {e}"));
    }
    // The translators' view: the same but for the three parts it leaves out.
    match DxilModule::for_translation(&module) {
        Ok(lean) => {
            let mut full = dxil.clone();
            full.type_annotations = Default::default();
            full.view_id_state = None;
            full.compiler = None;
            if format!("{full:?}") != format!("{lean:?}") {
                t.fail(format!("{name}: for_translation differs from from_module"));
            }
        }
        Err(e) => t.fail(format!("{name}: for_translation: {e}")),
    }

    if let Some(Ok(sfi0)) = container.feature_info() {
        let ours = dxil.shader_flags().sfi0_bits();
        if ours == sfi0.flags {
            t.sfi0_equal += 1;
        } else {
            t.sfi0_differs += 1;
            t.fail(format!(
                "{name}: SFI0 {:#x}, flags {} give {ours:#x}",
                sfi0.flags,
                dxil.shader_flags()
            ));
        }
        if dxil.shader_flags().feature_info() != ours {
            t.sfi0_optional_dropped += 1;
        }
    }

    // Timing: the table build and one decoding pass over every instruction.
    let start = Instant::now();
    let table = dxil_shader::DxOpTable::new(&module);
    t.table_time += start.elapsed();
    let start = Instant::now();
    let mut n = 0usize;
    for func in &module.functions {
        let Some(body) = func.body.as_ref() else {
            continue;
        };
        for i in 0..body.insts.len() {
            n += usize::from(table.call(&module, func, InstId(i as u32)).is_some());
        }
        t.insts += body.insts.len();
    }
    t.decode_pass_time += start.elapsed();
    std::hint::black_box(n);
    let decoded_before = t.calls_decoded;
    check_calls_and_handles(&module, &dxil, name, t);
    let decoded_here = t.calls_decoded - decoded_before;

    let ll_path = path.with_extension("ll");
    let Ok(text) = std::fs::read_to_string(&ll_path) else {
        return;
    };
    t.listings += 1;
    let listed = text
        .lines()
        .filter(|l| {
            !l.starts_with("declare")
                && l.contains("call ")
                && (l.contains("@dx.op.") || l.contains("@\"dx.op."))
        })
        .count();
    t.calls_in_listings += listed;
    if listed != decoded_here {
        t.fail(format!(
            "{name}: {decoded_here} dx.op calls decoded, {listed} in the listing"
        ));
    }
    let ll = Listing::parse(&text);
    compare_with_listing(&dxil, &ll, name, t);
}

fn check_calls_and_handles(module: &Module, dxil: &DxilModule, name: &str, t: &mut Tally) {
    let handle_ty = module.types.find_struct("dx.types.Handle");
    let mut resolver = HandleResolver::new();
    let mut info = HandleInfo::default();
    for func in &module.functions {
        let Some(body) = func.body.as_ref() else {
            continue;
        };
        for i in 0..body.insts.len() {
            let inst = InstId(i as u32);
            let call = match dxil.dx_ops().decode(module, func, inst) {
                Ok(Some(c)) => c,
                Ok(None) => continue,
                Err(e) => {
                    t.fail(format!("{name}: {}: {e}", func.name));
                    continue;
                }
            };
            t.calls_decoded += 1;
            // createHandleForLib's operand is the loaded resource, not a handle.
            if call.opcode() == Some(OpCode::CreateHandleForLib) {
                continue;
            }
            let Some(h) = call.arg(0) else { continue };
            if handle_ty.is_none() || module.value_type(Some(func), h) != handle_ty {
                continue;
            }
            t.handle_operands += 1;
            resolver.resolve_into(dxil, module, func, h, &mut info);
            let opaque = info
                .candidates
                .iter()
                .any(|c| matches!(c.origin, HandleOrigin::Opaque(_)));
            if opaque || info.candidates.is_empty() || info.truncated {
                t.handles_opaque += 1;
                t.fail(format!(
                    "{name}: {}: {inst} {}: handle operand with an opaque origin",
                    func.name,
                    call.info().name
                ));
            } else {
                t.handles_resolved += 1;
            }
            for c in &info.candidates {
                let bound = matches!(
                    c.origin,
                    HandleOrigin::CreateHandle { .. }
                        | HandleOrigin::FromBinding { .. }
                        | HandleOrigin::ForLib { .. }
                );
                let Some(r) = c.origin.resource() else {
                    if bound {
                        t.fail(format!(
                            "{name}: {}: {inst}: creation {:?} matches no dx.resources record",
                            func.name, c.origin
                        ));
                    }
                    continue;
                };
                let (Some((_, annotated)), Some(res)) = (c.annotation, dxil.resource(r)) else {
                    continue;
                };
                // Only the first use of each annotateHandle matters; counting repeats is fine.
                t.annotations_checked += 1;
                let derived = res.properties(module);
                if let Some(gap) = explained_difference(annotated.raw, derived.raw) {
                    t.note(
                        gap,
                        format!("{name}: {} {}", res.hlsl_type_name(), res.binding_name()),
                    );
                } else if derived != annotated {
                    t.annotations_differ += 1;
                    t.fail(format!(
                        "{name}: {} {} annotated {:x?}, record gives {:x?}",
                        res.hlsl_type_name(),
                        res.binding_name(),
                        annotated.raw,
                        derived.raw
                    ));
                }
            }
        }
    }
}

/// Differences between DXC's `annotateHandle` properties and those derived from the record
/// that the metadata cannot explain: DXC sets the counter bit only where the counter is used,
/// and knows a structured buffer's base alignment and a UAV's sample count from high-level
/// types the final metadata no longer has.
fn explained_difference(annotated: [u32; 2], derived: [u32; 2]) -> Option<&'static str> {
    if annotated == derived {
        return None;
    }
    let (mut a, mut d) = (annotated, derived);
    let mut why = None;
    if a[0] & props::CMP_OR_COUNTER == 0 && d[0] & props::CMP_OR_COUNTER != 0 {
        d[0] &= !props::CMP_OR_COUNTER;
        why = Some("annotation without the counter bit of a record with a counter");
    }
    if a[0] & 0xf00 != 0 && d[0] & 0xf00 == 0 {
        a[0] &= !0xf00;
        why = Some("annotation with a base alignment the metadata does not carry");
    }
    let kind = a[0] & 0xff;
    if a[0] & props::UAV != 0 && (kind == 3 || kind == 8) && d[1] & 0xff_0000 == 0 {
        a[1] &= !0xff_0000;
        why = Some("annotation with the sample count of a multisampled UAV (not in UAV records)");
    }
    if a == d { why } else { None }
}

fn compare_with_listing(dxil: &DxilModule, ll: &Listing, name: &str, t: &mut Tally) {
    let mut errs: Vec<String> = Vec::new();
    // Shader model.
    match ll.named_node("dx.shaderModel") {
        Some([Op::Str(stage), Op::Int(major), Op::Int(minor)]) => {
            let sm = dxil.shader_model;
            if stage.as_slice() != sm.stage_name().as_bytes()
                || *major != i64::from(sm.major)
                || *minor != i64::from(sm.minor)
            {
                errs.push(format!(
                    "shader model {sm} vs listing {stage:?} {major}.{minor}"
                ));
            }
        }
        other => errs.push(format!("listing shader model unreadable: {other:?}")),
    }
    // Entry points.
    let entries = ll.named.get("dx.entryPoints").cloned().unwrap_or_default();
    if entries.len() != dxil.entry_points.len() {
        errs.push(format!(
            "{} entry points vs {} in listing",
            dxil.entry_points.len(),
            entries.len()
        ));
    }
    for (e, &node) in dxil.entry_points.iter().zip(&entries) {
        t.entry_points += 1;
        let Some(ops) = ll.nodes.get(&node) else {
            errs.push(format!("listing entry !{node} missing"));
            continue;
        };
        if ops.get(1).and_then(Op::str) != Some(e.name.as_bytes()) {
            errs.push(format!(
                "entry name {:?} vs listing {:?}",
                e.name,
                ops.get(1)
            ));
        }
        if matches!(ops.first(), Some(Op::Null)) != e.function.is_none() {
            errs.push(format!("entry {:?}: function presence differs", e.name));
        }
        let props = ops.get(4).and_then(|p| ll.node(p)).unwrap_or(&[]);
        let mut threads = None;
        let mut flags = None;
        let mut kind = None;
        for pair in props.chunks(2) {
            match (pair.first().and_then(Op::int), pair.get(1)) {
                (Some(4), Some(v)) => {
                    threads = ll
                        .node(v)
                        .map(|n| n.iter().map(|x| x.int().unwrap_or(-1)).collect::<Vec<_>>());
                }
                (Some(0), Some(v)) => flags = v.int(),
                (Some(8), Some(v)) => kind = v.int(),
                _ => {}
            }
        }
        let ours_threads = e
            .properties
            .num_threads
            .map(|x| x.iter().map(|&v| i64::from(v)).collect::<Vec<_>>());
        if threads != ours_threads {
            errs.push(format!(
                "entry {:?}: numthreads {ours_threads:?} vs listing {threads:?}",
                e.name
            ));
        }
        if flags != e.properties.shader_flags.map(|f| f.0 as i64) {
            errs.push(format!(
                "entry {:?}: shader flags {:?} vs listing {flags:?}",
                e.name, e.properties.shader_flags
            ));
        }
        if kind != e.properties.shader_kind.map(|k| i64::from(k.raw())) {
            errs.push(format!("entry {:?}: shader kind differs", e.name));
        }
        if dxil.is_library() && e.function.is_some() {
            let expected = kind.map_or(ShaderKind::Library, |k| ShaderKind::from_raw(k as u32));
            if e.shader_kind != expected {
                errs.push(format!(
                    "entry {:?}: effective kind {}",
                    e.name, e.shader_kind
                ));
            }
        }
        // Signatures: element count and names per list.
        let sigs = ops.get(2).and_then(|s| ll.node(s)).unwrap_or(&[]);
        let ours = [
            &e.signatures.inputs,
            &e.signatures.outputs,
            &e.signatures.patch_constant_or_primitive,
        ];
        for (k, list) in ours.into_iter().enumerate() {
            let theirs: Vec<&[Op]> = sigs
                .get(k)
                .and_then(|l| ll.node(l))
                .unwrap_or(&[])
                .iter()
                .filter_map(|el| ll.node(el))
                .collect();
            t.signature_elements += list.len();
            if theirs.len() != list.len() {
                errs.push(format!(
                    "entry {:?}: signature {k} has {} elements vs {}",
                    e.name,
                    list.len(),
                    theirs.len()
                ));
                continue;
            }
            for (el, their) in list.iter().zip(theirs) {
                compare_element(el, their, &mut errs);
            }
        }
    }
    // Resources.
    let lists = ll.named_node("dx.resources");
    for class in ResourceClass::ALL {
        let ours = dxil.resources.list(class);
        let theirs: Vec<&[Op]> = lists
            .and_then(|l| l.get(class.list_index().unwrap_or(0)))
            .and_then(|l| ll.node(l))
            .unwrap_or(&[])
            .iter()
            .filter_map(|r| ll.node(r))
            .collect();
        if ours.len() != theirs.len() {
            errs.push(format!(
                "{} {} records vs {} in listing",
                ours.len(),
                class.d3d_name(),
                theirs.len()
            ));
            continue;
        }
        for (r, their) in ours.iter().zip(theirs) {
            t.resources += 1;
            compare_record(r, their, ll, &mut errs);
        }
    }
    for e in errs {
        t.fail(format!("{name}: {e}"));
    }
}

fn compare_element(el: &SignatureElement, their: &[Op], errs: &mut Vec<String>) {
    let int = |i: usize| their.get(i).and_then(Op::int);
    let checks = [
        ("id", i64::from(el.id), int(0)),
        ("component type", i64::from(el.component_type.raw()), int(2)),
        ("semantic kind", i64::from(el.semantic_kind.raw()), int(3)),
        (
            "interpolation",
            i64::from(el.interpolation_mode.raw()),
            int(5),
        ),
        ("rows", i64::from(el.rows), int(6)),
        ("cols", i64::from(el.cols), int(7)),
        ("start row", i64::from(el.start_row), int(8)),
        ("start col", i64::from(el.start_col), int(9)),
    ];
    for (field, ours, theirs) in checks {
        if Some(ours) != theirs {
            errs.push(format!(
                "signature element {:?}: {field} {ours} vs listing {theirs:?}",
                el.name
            ));
        }
    }
    if their.get(1).and_then(Op::str) != Some(el.name.as_bytes()) {
        errs.push(format!("signature element {:?}: name differs", el.name));
    }
}

fn compare_record(r: &Resource, their: &[Op], ll: &Listing, errs: &mut Vec<String>) {
    let int = |i: usize| their.get(i).and_then(Op::int);
    let what = format!("{} record {}", r.class.d3d_name(), r.id);
    let u = |v: u32| Some(i64::from(v as i32));
    let mut checks: Vec<(&str, Option<i64>, Option<i64>)> = vec![
        ("id", u(r.id), int(0)),
        ("space", u(r.space), int(3)),
        ("lower bound", u(r.lower_bound), int(4)),
        ("range size", u(r.range_size), int(5)),
    ];
    let tags_at = match &r.fields {
        ClassFields::Srv { sample_count } => {
            checks.push(("shape", u(r.kind.raw()), int(6)));
            checks.push(("sample count", u(*sample_count), int(7)));
            8
        }
        ClassFields::Uav {
            globally_coherent,
            has_counter,
            rasterizer_ordered,
        } => {
            checks.push(("shape", u(r.kind.raw()), int(6)));
            checks.push((
                "globally coherent",
                Some(i64::from(*globally_coherent)),
                int(7),
            ));
            checks.push(("counter", Some(i64::from(*has_counter)), int(8)));
            checks.push(("ROV", Some(i64::from(*rasterizer_ordered)), int(9)));
            10
        }
        ClassFields::CBuffer { size_in_bytes } => {
            checks.push(("size", u(*size_in_bytes), int(6)));
            7
        }
        ClassFields::Sampler { sampler_kind } => {
            checks.push(("sampler kind", u(sampler_kind.raw()), int(6)));
            7
        }
    };
    for (field, ours, theirs) in checks {
        if ours != theirs {
            errs.push(format!("{what}: {field} {ours:?} vs listing {theirs:?}"));
        }
    }
    if their.get(2).and_then(Op::str) != Some(r.name.as_bytes()) {
        errs.push(format!("{what}: name {:?} differs", r.name));
    }
    // Tags, as (tag, value) pairs in order.
    let theirs: Vec<(i64, Option<i64>)> = their
        .get(tags_at)
        .and_then(|t| ll.node(t))
        .unwrap_or(&[])
        .chunks(2)
        .map(|p| (p[0].int().unwrap_or(-1), p.get(1).and_then(Op::int)))
        .collect();
    let mut ours: Vec<(i64, Option<i64>)> = Vec::new();
    let tg = &r.tags;
    let mut push = |tag: i64, v: Option<i64>| ours.push((tag, v));
    if let Some(c) = tg.element_type {
        push(0, Some(i64::from(c.raw())));
    }
    if let Some(s) = tg.structure_stride {
        push(1, Some(i64::from(s)));
    }
    if let Some(f) = tg.sampler_feedback {
        push(2, Some(i64::from(f.raw())));
    }
    if let Some(a) = tg.atomic64_use {
        push(3, Some(i64::from(a)));
    }
    if let Some(a) = tg.reorder_coherent {
        push(4, Some(i64::from(a)));
    }
    for u in &tg.unknown {
        push(i64::from(u.tag), u.int);
    }
    let mut sorted_theirs = theirs.clone();
    sorted_theirs.sort();
    ours.sort();
    if ours != sorted_theirs {
        errs.push(format!("{what}: tags {ours:?} vs listing {theirs:?}"));
    }
}

#[test]
fn resource_element_types_come_from_symbol_types() {
    // A module with one typed SRV whose (stripped) symbol is `[0 x %"class.Texture2D<...>"]*
    // undef`: the element type is the struct's first member.
    let Some(root) = dxil_corpus::corpus_dir() else {
        return;
    };
    let path = root.join("dxil-spirv/heap-robustness/misc.bindless.sm66.ssbo.comp.dxil");
    let Ok(bytes) = std::fs::read(&path) else {
        dxil_corpus::skip_or_fail(format_args!("{} not in corpus", path.display()));
        return;
    };
    let c = dxil_container::Container::parse(&bytes).unwrap();
    let p = c.program().unwrap().unwrap();
    let m = dxil_module::read::read_module(p.bitcode, p.bitcode_byte_offset_in_container as u64)
        .unwrap();
    let d = DxilModule::from_module(&m).unwrap();
    let tex = &d.resources.srvs[0];
    assert_eq!(tex.hlsl_type_name(), "Texture2D");
    assert!(tex.is_unbounded());
    let elem = tex.element_ty.expect("element type");
    assert!(matches!(
        m.types.data(elem),
        TypeData::Vector { len: 4, .. }
    ));
    assert_eq!(tex.component_count(&m), 4);
    let sb = &d.resources.uavs[3];
    assert_eq!(sb.binding_name(), "u100,space3");
    assert_eq!(sb.tags.structure_stride, Some(16));
    assert_eq!(
        d.resources.cbuffers[0].fields,
        ClassFields::CBuffer { size_in_bytes: 16 }
    );
}

/// Hostile metadata: real modules whose metadata operands, value types and integer constants
/// are rewritten at random must decode or fail cleanly, never panic (byte-level fuzzing rarely
/// gets a mutated container past the bitcode reader, so the metadata layer is mutated here).
#[test]
fn mutated_metadata_never_panics() {
    let Some(root) = dxil_corpus::corpus_dir() else {
        return;
    };
    let files = dxil_corpus::containers(&root);
    let mut rng = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let (mut modules, mut decoded, mut rejected) = (0, 0, 0);
    for path in files.iter().step_by(8) {
        let bytes = std::fs::read(path).unwrap();
        let Ok(c) = dxil_container::Container::parse(&bytes) else {
            continue;
        };
        let Some(Ok(p)) = c.program() else { continue };
        let Ok(base) = dxil_module::read::read_module(p.bitcode, 0) else {
            continue;
        };
        modules += 1;
        for round in 0..16 {
            let mut m = base.clone();
            let md_len = m.metadata.items.len() as u64;
            let ty_len = m.types.len() as u64;
            for _ in 0..1 + round % 4 {
                match next() % 4 {
                    0 if !m.metadata.operands.is_empty() => {
                        let i = (next() % m.metadata.operands.len() as u64) as usize;
                        m.metadata.operands[i] = (next() % (md_len + 3)) as u32;
                    }
                    1 if md_len > 0 => {
                        let i = (next() % md_len) as usize;
                        if let dxil_module::MdData::Value { ty, .. } = &mut m.metadata.items[i] {
                            *ty = dxil_module::TypeId((next() % (ty_len + 2)) as u32);
                        }
                    }
                    2 if !m.constants.is_empty() => {
                        let i = dxil_module::ConstId((next() % m.constants.len() as u64) as u32);
                        if let Some(c) = m.constants.get(i).cloned()
                            && matches!(c.data, dxil_module::ConstData::Int(_))
                        {
                            let v = [0, -1, 1 << 40, i64::MIN, 7][(next() % 5) as usize];
                            m.constants.set(
                                i,
                                dxil_module::Constant {
                                    ty: c.ty,
                                    data: dxil_module::ConstData::Int(v),
                                },
                            );
                        }
                    }
                    _ => {
                        for i in 0..m.metadata.named.len() {
                            let r = m.metadata.named[i].operands;
                            let first = m.metadata.named_ops.get_mut(r.start as usize);
                            if let Some(o) = first.filter(|_| r.len > 0) {
                                *o = dxil_module::MdId((next() % (md_len + 2)) as u32);
                            }
                        }
                    }
                }
            }
            match DxilModule::from_module(&m) {
                Ok(_) => decoded += 1,
                Err(e) => {
                    rejected += 1;
                    assert!(!e.to_string().is_empty());
                }
            }
            dxil_shader::fuzz::fuzz_module(&m);
        }
    }
    println!(
        "mutated metadata: {modules} modules, {decoded} variants decoded, {rejected} rejected"
    );
    assert!(modules > 200 && rejected > 0 && decoded > 0);
}
