//! From a lowered module to a container: bindings placed, handle calls completed, metadata,
//! root signature, assembly, and the specialization-constant table.

use dxil_module::{ConstId, InstKind, Value};
use dxil_shader::{ResourceClass, ShaderKind};
use spirv::ExecutionModel;

use crate::bindings::{BindingInfo, BindingRequest, DescriptorKind, RegisterClass};
use crate::builder::Builder;
use crate::error::{Error, ErrorKind, Result, internal, unsupported};
use crate::lower::{CreateSite, ResKind, Resource, Tr};
use crate::metadata::{self, Md, VALIDATOR_VERSION};
use crate::spec::{SpecConstant, SpecTable};
use crate::{Options, Output, SpecMode, spv};

/// The entry point the options name (or the only one).
pub fn select_entry<'m>(m: &'m spv::Module<'_>, options: &Options) -> Result<&'m spv::EntryPoint> {
    let matches: Vec<&spv::EntryPoint> = m
        .entry_points
        .iter()
        .filter(|e| options.entry_point.as_deref().is_none_or(|n| n == e.name))
        .collect();
    match matches.as_slice() {
        [one] => Ok(one),
        [] => Err(Error::new(
            ErrorKind::EntryPoint,
            match &options.entry_point {
                Some(n) => format!("no entry point named {n:?}"),
                None => "the module has no entry point".into(),
            },
        )),
        many => Err(Error::new(
            ErrorKind::EntryPoint,
            format!(
                "{} entry points ({}); name one",
                many.len(),
                many.iter()
                    .map(|e| e.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )),
    }
}

pub fn stage_of(model: ExecutionModel) -> Result<(ShaderKind, &'static str)> {
    Ok(match model {
        ExecutionModel::GLCompute => (ShaderKind::Compute, "cs"),
        ExecutionModel::Vertex => (ShaderKind::Vertex, "vs"),
        ExecutionModel::Fragment => (ShaderKind::Pixel, "ps"),
        ExecutionModel::Geometry => (ShaderKind::Geometry, "gs"),
        ExecutionModel::TessellationControl => (ShaderKind::Hull, "hs"),
        ExecutionModel::TessellationEvaluation => (ShaderKind::Domain, "ds"),
        ExecutionModel::MeshEXT => (ShaderKind::Mesh, "ms"),
        ExecutionModel::TaskEXT => (ShaderKind::Amplification, "as"),
        m => return Err(unsupported(format!("{m:?} shaders"))),
    })
}

pub fn translate_module(m: &spv::Module<'_>, options: &Options) -> Result<Output> {
    let entry = select_entry(m, options)?;
    let (kind, profile) = stage_of(entry.model)?;
    // Shader model 6.6 features need the 6.6 handle operations; the first translation
    // finds out whether any is used.
    let mut tr = Tr::new(m, options, entry, false)?;
    tr.run()?;
    if tr.features.min_sm >= (6, 6) {
        tr = Tr::new(m, options, entry, true)?;
        tr.run()?;
    }
    let mut bindings = place_resources(&mut tr)?;
    tr.b.finish_main()?;
    let pinned: Vec<ConstId> = tr.spec.records.iter().filter_map(|r| r.constant).collect();
    crate::lower::promote_locals(&mut tr.b.m, &pinned)?;
    let push_bytes = tr.resources.iter().find_map(|r| match r.kind {
        ResKind::PushConstants { size } => Some(size),
        _ => None,
    });
    let root_signature = if options.root_signature {
        let rs = crate::rootsig::build(&mut bindings, push_bytes)?;
        Some(
            rs.to_rts0_bytes()
                .map_err(|e| internal(format!("root signature: {e}")))?,
        )
    } else {
        None
    };
    let sm = tr.features.min_sm;
    let flags = metadata::shader_flags(&tr.b.m, &tr.b, &tr.resources, &tr.features, kind);
    if tr.features.native16 || flags.contains(dxil_shader::ShaderFlags::USE_NATIVE_LOW_PRECISION) {
        tr.b.m.datalayout = crate::builder::LAYOUT_NATIVE_16.into();
        tr.features.need_sm(6, 2);
    }
    let sm = tr.features.min_sm.max(sm);
    write_metadata(&mut tr, kind, profile, sm, flags)?;
    let spec_records = std::mem::take(&mut tr.spec.records);
    let patchable: Vec<ConstId> = spec_records.iter().filter_map(|r| r.constant).collect();
    let base_table = SpecTable {
        constants: spec_records
            .iter()
            .map(|r| SpecConstant {
                spec_id: r.spec_id,
                ty: r.ty,
                value: r.value,
                bit_offsets: Vec::new(),
                folded: r.folded.clone(),
            })
            .collect(),
    };
    let module = std::mem::take(&mut tr.b.m);
    let mut aopts = dxil_assembler::AssembleOptions {
        root_signature,
        // Patching rewrites the HASH part: after the bitcode, it leaves the digest's prefix
        // state (spec::Patcher) covering everything up to the first patch site.
        hash_after_program: options.spec_constants == SpecMode::Patchable,
        ..Default::default()
    };
    aopts.write.patchable_constants = patchable.clone();
    // In the function's constants block, after the module's metadata: fewer bytes to rehash.
    aopts.write.patchable_in_functions = true;
    // In a constants block of their own, just before their first use: fewer still.
    aopts.write.patchable_late = true;
    // Our own abbreviations for the records that fill DXIL bodies: smaller containers, less
    // to hash when signing and when patching.
    aopts.write.compact_bodies = true;
    let embed = options.spec_constants == SpecMode::Patchable
        && options.embed_spec_table
        && !base_table.constants.is_empty();
    // Offsets are only known after writing; the part's size depends on the number of sites,
    // so a placeholder with one site per patchable constant is written first (a hull shader's
    // two functions may each hold one: then once more with the right count), then the table.
    let mut placeholder = base_table.clone();
    for c in &mut placeholder.constants {
        if c.folded.is_none() {
            c.bit_offsets = vec![0];
        }
    }
    let mut tries = 0;
    let (mut container, table) = loop {
        if embed {
            aopts.extra_parts = vec![(dxil_assembler::FourCC::PRIV, placeholder.to_bytes())];
        }
        let (container, sites) = dxil_assembler::build_container_with_sites(&module, &aopts)
            .map_err(|e| internal(format!("assembling the container: {e}")))?;
        let mut table = base_table.clone();
        for site in sites {
            let i = patchable
                .iter()
                .position(|c| *c == site.constant)
                .ok_or_else(|| internal("patch site of an unknown constant"))?;
            let rec = spec_records
                .iter()
                .filter(|r| r.constant.is_some())
                .nth(i)
                .ok_or_else(|| internal("patch site without a record"))?;
            if let Some(t) = table
                .constants
                .iter_mut()
                .find(|c| c.spec_id == rec.spec_id && c.folded.is_none())
            {
                t.bit_offsets.push(site.bit_offset);
            }
        }
        let same_size = table
            .constants
            .iter()
            .zip(&placeholder.constants)
            .all(|(a, b)| a.bit_offsets.len() == b.bit_offsets.len());
        if !embed || same_size {
            break (container, table);
        }
        if tries > 0 {
            return Err(internal("patch sites changed between two writes"));
        }
        tries += 1;
        for (p, t) in placeholder.constants.iter_mut().zip(&table.constants) {
            p.bit_offsets = vec![0; t.bit_offsets.len()];
        }
    };
    if embed {
        crate::spec::rewrite_table(&mut container, &table)?;
    }
    Ok(Output {
        container,
        profile: format!("{profile}_{}_{}", sm.0, sm.1),
        entry_point: entry.name.clone(),
        bindings,
        spec_constants: table,
    })
}

fn descriptor_kind(r: &Resource) -> DescriptorKind {
    match r.kind {
        ResKind::Raw => DescriptorKind::StorageBuffer,
        ResKind::CBuffer { .. } => DescriptorKind::UniformBuffer,
        ResKind::PushConstants { .. } => DescriptorKind::PushConstants,
        ResKind::Sampler { .. } if r.is_sampler_half => DescriptorKind::CombinedSampler,
        ResKind::Sampler { .. } => DescriptorKind::Sampler,
        ResKind::AccelStruct => DescriptorKind::AccelerationStructure,
        ResKind::Typed { kind, .. } => {
            let buffer = kind == dxil_shader::ResourceKind::TypedBuffer;
            match (r.class, buffer) {
                (ResourceClass::UAV, true) => DescriptorKind::StorageTexelBuffer,
                (ResourceClass::UAV, false) => DescriptorKind::StorageImage,
                (_, true) => DescriptorKind::UniformTexelBuffer,
                _ if r.combined => DescriptorKind::CombinedImage,
                _ => DescriptorKind::SampledImage,
            }
        }
    }
}

/// Chooses classes, places registers, numbers the ranges and completes the handle calls.
fn place_resources(tr: &mut Tr<'_>) -> Result<Vec<BindingInfo>> {
    let mut infos: Vec<BindingInfo> = Vec::with_capacity(tr.resources.len());
    for r in &mut tr.resources {
        if r.kind == ResKind::Raw {
            r.class = if r.written {
                ResourceClass::UAV
            } else {
                ResourceClass::SRV
            };
        }
        r.rov = tr.features.rovs && r.class == ResourceClass::UAV;
        let class = match r.class {
            ResourceClass::SRV => RegisterClass::Srv,
            ResourceClass::UAV => RegisterClass::Uav,
            ResourceClass::CBuffer => RegisterClass::Cbv,
            _ => RegisterClass::Sampler,
        };
        let kind = descriptor_kind(r);
        let push = kind == DescriptorKind::PushConstants;
        let (set, binding) = if push {
            (u32::MAX, u32::MAX)
        } else {
            (r.set, r.binding)
        };
        let alias = infos
            .iter()
            .filter(|i| i.set == set && i.binding == binding && i.class == class)
            .count() as u32;
        let req = BindingRequest {
            set,
            binding,
            kind,
            class,
            count: r.count,
            name: r.name.clone(),
            alias,
        };
        let t = tr.opts.bindings.resolve(&req)?;
        let class = t.class.unwrap_or(class);
        r.class = match class {
            RegisterClass::Srv => ResourceClass::SRV,
            RegisterClass::Uav => ResourceClass::UAV,
            RegisterClass::Cbv => ResourceClass::CBuffer,
            RegisterClass::Sampler => ResourceClass::Sampler,
        };
        r.space = t.space;
        r.lower = t.register;
        infos.push(BindingInfo {
            set: req.set,
            binding: req.binding,
            kind,
            class,
            space: t.space,
            register: t.register,
            count: r.count,
            name: r.name.clone(),
            root_parameter: None,
            table_offset: None,
        });
    }
    check_overlaps(&infos)?;
    let mut next = [0u32; 4];
    for r in &mut tr.resources {
        let c = r.class.list_index().unwrap_or(3);
        r.range_id = next[c];
        next[c] += 1;
    }
    for i in 0..tr.resources.len() {
        let r = tr.resources[i].clone();
        for site in &r.creates {
            patch_create(&mut tr.b, site, &r)?;
        }
    }
    Ok(infos)
}

fn check_overlaps(infos: &[BindingInfo]) -> Result<()> {
    for (i, a) in infos.iter().enumerate() {
        for b in &infos[i + 1..] {
            if a.class != b.class || a.space != b.space {
                continue;
            }
            let end = |x: &BindingInfo| {
                if x.count == u32::MAX {
                    u64::from(u32::MAX)
                } else {
                    u64::from(x.register) + u64::from(x.count.max(1)) - 1
                }
            };
            if u64::from(a.register) <= end(b) && u64::from(b.register) <= end(a) {
                return Err(Error::new(
                    ErrorKind::Binding,
                    format!(
                        "set {} binding {} and set {} binding {} overlap at {}{} space {}",
                        a.set,
                        a.binding,
                        b.set,
                        b.binding,
                        a.class.letter(),
                        a.register.max(b.register),
                        a.space
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Completes a handle creation: class, range and register (`createHandle`), or binding and
/// properties (`createHandleFromBinding` + `annotateHandle`).
fn patch_create(b: &mut Builder, site: &CreateSite, r: &Resource) -> Result<()> {
    b.with_body(site.func, |b| patch_create_in(b, site, r))
}

fn patch_create_in(b: &mut Builder, site: &CreateSite, r: &Resource) -> Result<()> {
    let args = b
        .call_args(site.call)
        .ok_or_else(|| internal("handle creation is not a call"))?;
    let base = args.start as usize;
    let index_at = if site.annotate.is_some() {
        base + 2
    } else {
        base + 3
    };
    match site.add {
        None => {
            let lower = b.i32c(i64::from(r.lower as i32));
            b.body_pool_set(index_at, lower)?
        }
        Some(a) if a.as_const().is_some() => {
            // A constant array index: the register is lower + index.
            let k = b.as_const_int(a).unwrap_or(0);
            let reg = b.i32c(i64::from(r.lower.wrapping_add(k as u32) as i32));
            b.body_pool_set(index_at, reg)?
        }
        Some(a) => {
            let lower = b.i32c(i64::from(r.lower as i32));
            b.set_binary_rhs(a, lower)?
        }
    }
    match site.annotate {
        None => {
            let class = b.i8c(i64::from(r.class.raw()));
            let range = b.i32c(i64::from(r.range_id));
            b.body_pool_set(base + 1, class)?;
            b.body_pool_set(base + 2, range)?;
        }
        Some(annotate) => {
            let upper = if r.count == u32::MAX {
                u32::MAX
            } else {
                r.lower.wrapping_add(r.count.max(1) - 1)
            };
            let bind_ty = b.res_bind_type();
            let fields = [
                b.i32c(i64::from(r.lower as i32)),
                b.i32c(i64::from(upper as i32)),
                b.i32c(i64::from(r.space as i32)),
                b.i8c(i64::from(r.class.raw())),
            ];
            let bind = b.const_aggregate(bind_ty, &fields);
            b.body_pool_set(base + 1, bind)?;
            let (w0, w1) = resource_properties(r);
            let props_ty = b.res_props_type();
            let words = [b.i32c(i64::from(w0 as i32)), b.i32c(i64::from(w1 as i32))];
            let props = b.const_aggregate(props_ty, &words);
            let aargs = b
                .call_args(annotate)
                .ok_or_else(|| internal("annotateHandle is not a call"))?;
            b.body_pool_set(aargs.start as usize + 2, props)?;
        }
    }
    Ok(())
}

/// The two `annotateHandle` property words of a resource (`DxilResourceProperties`).
fn resource_properties(r: &Resource) -> (u32, u32) {
    use dxil_shader::ResourceKind as K;
    let uav = (u32::from(r.class == ResourceClass::UAV) << 12) | (u32::from(r.rov) << 13);
    let coherent = u32::from(r.globally_coherent && r.class == ResourceClass::UAV) << 14;
    match r.kind {
        ResKind::Raw => (K::RawBuffer.raw() | uav | coherent, 0),
        ResKind::CBuffer { size } | ResKind::PushConstants { size } => {
            (K::CBuffer.raw(), size.div_ceil(16) * 16)
        }
        ResKind::Sampler { comparison } => (K::Sampler.raw() | (u32::from(comparison) << 15), 0),
        ResKind::AccelStruct => (K::RTAccelerationStructure.raw(), 0),
        ResKind::Typed {
            kind,
            comp,
            count,
            sample_count,
        } => {
            let wide = matches!(
                comp,
                dxil_shader::ComponentType::U64 | dxil_shader::ComponentType::I64
            );
            let count = if wide { 1 } else { u32::from(count) };
            (
                kind.raw() | uav | coherent,
                crate::metadata::metadata_comp(comp).raw()
                    | (count << 8)
                    | ((sample_count & 0xff) << 16),
            )
        }
    }
}

fn write_metadata(
    tr: &mut Tr<'_>,
    kind: ShaderKind,
    profile: &str,
    sm: (u8, u8),
    flags: dxil_shader::ShaderFlags,
) -> Result<()> {
    let resources = std::mem::take(&mut tr.resources);
    let numthreads = if kind == ShaderKind::Compute {
        Some(tr.workgroup_size()?)
    } else {
        None
    };
    let sigs = tr.signature_metadata()?;
    let stage_props = tr.stage_properties()?;
    let main = tr.b.main;
    let mut md = Md { b: &mut tr.b };
    let ident = md.string("dxil-rs from-spirv");
    let ident = md.node(&[Some(ident)]);
    md.named("llvm.ident", vec![ident]);
    let (dv1, dv2) = (md.i32(1), md.i32(i64::from(sm.1)));
    let dxv = md.node(&[Some(dv1), Some(dv2)]);
    md.named("dx.version", vec![dxv]);
    let (v1, v2) = (
        md.i32(i64::from(VALIDATOR_VERSION.0)),
        md.i32(i64::from(VALIDATOR_VERSION.1)),
    );
    let valver = md.node(&[Some(v1), Some(v2)]);
    md.named("dx.valver", vec![valver]);
    let (p, s1, s2) = (
        md.string(profile),
        md.i32(i64::from(sm.0)),
        md.i32(i64::from(sm.1)),
    );
    let smn = md.node(&[Some(p), Some(s1), Some(s2)]);
    md.named("dx.shaderModel", vec![smn]);
    let res = metadata::resources(&mut md, &resources);
    if let Some(r) = res {
        md.named("dx.resources", vec![r]);
    }
    let mut props: Vec<Option<MdIdOpt>> = Vec::new();
    if flags.0 != 0 {
        props.push(Some(md.i32(0)));
        props.push(Some(md.i64(flags.0 as i64)));
    }
    for (tag, node) in stage_props.build(&mut md)? {
        props.push(Some(md.i32(i64::from(tag))));
        props.push(Some(node));
    }
    if let Some([x, y, z]) = numthreads {
        let (x, y, z) = (
            md.i32(i64::from(x)),
            md.i32(i64::from(y)),
            md.i32(i64::from(z)),
        );
        let n = md.node(&[Some(x), Some(y), Some(z)]);
        props.push(Some(md.i32(4)));
        props.push(Some(n));
    }
    let props = if props.is_empty() {
        None
    } else {
        Some(md.node(&props))
    };
    let fn_ptr = md.b.m.functions[main.index()].ptr_ty;
    let f = md.value(fn_ptr, Value::function(main));
    let name = md.string("main");
    let sigs = sigs.build(&mut md)?;
    let entry = md.node(&[Some(f), Some(name), sigs, res, props]);
    md.named("dx.entryPoints", vec![entry]);
    tr.resources = resources;
    Ok(())
}

type MdIdOpt = dxil_module::MdId;

impl Builder {
    /// Overwrites one entry of the body's operand pool.
    pub fn body_pool_set(&mut self, at: usize, v: Value) -> Result<()> {
        let slot = self
            .body
            .pool
            .get_mut(at)
            .ok_or_else(|| internal("operand pool index out of range"))?;
        *slot = v.0;
        Ok(())
    }

    /// Replaces the right operand of a binary instruction.
    pub fn set_binary_rhs(&mut self, inst: Value, rhs: Value) -> Result<()> {
        let i = inst
            .as_inst()
            .ok_or_else(|| internal("not an instruction"))?;
        match self.body.insts.get_mut(i.index()).map(|d| &mut d.kind) {
            Some(InstKind::Binary { rhs: r, .. }) => {
                *r = rhs;
                Ok(())
            }
            _ => Err(internal("not a binary instruction")),
        }
    }
}
