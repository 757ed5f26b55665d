//! Libraries and ray-tracing stages: entry points of corpus libraries, the stage each translates to, its payload,
//! attribute and callable-data variables, the ray-tracing instructions and built-ins, acceleration structures
//! under a root signature, and shader records of local root signatures. Every translation passes `spirv-val`.
//!
//! Reads `$DXIL_CORPUS` or `../shared/corpus`; without it the test is skipped with a message, unless `CI` is set.

mod support;

use std::collections::BTreeSet;
use std::sync::Arc;

use dxil_rootsig::{ParseOptions, parse_hlsl};
use dxil_to_spirv::{Options, RootSignatureBindings, Stage, Translation};
use rspirv::dr::{Module, Operand};
use spirv::{Op, StorageClass};
use support::*;

fn module_of(name: &str) -> Option<dxil_module::Module> {
    let corpus = corpus_dir()?;
    let bytes = std::fs::read(corpus.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    Some(dxil_to_spirv::read_container(&bytes).unwrap_or_else(|e| panic!("{name}: {e}")))
}

/// Translates `entry` of `m`, validates the result and parses it.
fn translate(m: &dxil_module::Module, entry: &str, options: Options) -> (Translation, Module) {
    let options = Options {
        entry_point: Some(entry.into()),
        ..options
    };
    let t = translate_valid(m, &options, entry);
    let mut loader = rspirv::dr::Loader::new();
    rspirv::binary::parse_words(&t.words, &mut loader).unwrap();
    (t, loader.module())
}

/// The storage classes of the module's global variables other than `Input` built-ins and descriptors.
fn data_classes(m: &Module) -> BTreeSet<String> {
    m.types_global_values
        .iter()
        .filter(|i| i.class.opcode == Op::Variable)
        .filter_map(|i| match i.operands.first() {
            Some(Operand::StorageClass(sc))
                if !matches!(
                    sc,
                    StorageClass::Input
                        | StorageClass::UniformConstant
                        | StorageClass::Uniform
                        | StorageClass::StorageBuffer
                        | StorageClass::PushConstant
                ) =>
            {
                Some(format!("{sc:?}"))
            }
            _ => None,
        })
        .collect()
}

/// The opcodes of the module's function bodies.
fn ops(m: &Module) -> BTreeSet<Op> {
    m.functions
        .iter()
        .flat_map(|f| f.blocks.iter())
        .flat_map(|b| b.instructions.iter())
        .map(|i| i.class.opcode)
        .collect()
}

/// The execution model of the module's one entry point.
fn model(m: &Module) -> spirv::ExecutionModel {
    match m.entry_points[0].operands[0] {
        Operand::ExecutionModel(e) => e,
        ref other => panic!("execution model operand {other:?}"),
    }
}

/// The built-ins the module declares.
fn builtins(m: &Module) -> BTreeSet<String> {
    m.annotations
        .iter()
        .filter(|a| a.class.opcode == Op::Decorate)
        .filter_map(|a| match (&a.operands[1], a.operands.get(2)) {
            (Operand::Decoration(spirv::Decoration::BuiltIn), Some(Operand::BuiltIn(b))) => {
                Some(format!("{b:?}"))
            }
            _ => None,
        })
        .collect()
}

fn set(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|s| s.to_string()).collect()
}

#[test]
fn every_export_of_a_library_translates_as_its_stage() {
    let Some(m) = module_of("vkd3d-proton/rt/default.lib_6_3.dxil") else {
        return;
    };
    let eps = dxil_to_spirv::entry_points(&m).unwrap();
    let listed: Vec<(&str, Stage)> = eps.iter().map(|e| (e.export.as_str(), e.stage)).collect();
    assert_eq!(
        listed,
        [
            ("RayAnyAABB", Stage::AnyHit),
            ("RayAnyTriangle", Stage::AnyHit),
            ("RayClosest", Stage::ClosestHit),
            ("RayGen", Stage::RayGeneration),
            ("RayIntersect", Stage::Intersection),
            ("RayMiss", Stage::Miss),
        ]
    );
    assert_eq!(
        eps[0].name,
        "\u{1}?RayAnyAABB@@YAXURayPayload@@UAABBAttribs@@@Z"
    );
    assert_eq!(
        (eps[0].payload_size, eps[0].attribute_size),
        (Some(8), Some(4))
    );

    use spirv::ExecutionModel as E;
    let expect: [(&str, E, &[&str], &[Op]); 6] = [
        (
            "RayAnyAABB",
            E::AnyHitKHR,
            &["HitAttributeNV", "IncomingRayPayloadNV"],
            &[Op::IgnoreIntersectionKHR],
        ),
        (
            "RayAnyTriangle",
            E::AnyHitKHR,
            &["IncomingRayPayloadNV"],
            &[Op::IgnoreIntersectionKHR],
        ),
        (
            "RayClosest",
            E::ClosestHitKHR,
            &["IncomingRayPayloadNV"],
            &[],
        ),
        (
            "RayGen",
            E::RayGenerationKHR,
            &["RayPayloadNV"],
            &[Op::TraceRayKHR],
        ),
        (
            "RayIntersect",
            E::IntersectionKHR,
            &["Function", "HitAttributeNV"],
            &[Op::ReportIntersectionKHR],
        ),
        ("RayMiss", E::MissKHR, &["IncomingRayPayloadNV"], &[]),
    ];
    for (entry, em, classes, needed) in expect {
        let (t, sm) = translate(&m, entry, Options::default());
        assert_eq!(t.entry_point, entry);
        assert_eq!(model(&sm), em, "{entry}");
        let locals: BTreeSet<String> = sm
            .functions
            .iter()
            .flat_map(|f| f.blocks.iter())
            .flat_map(|b| b.instructions.iter())
            .filter(|i| i.class.opcode == Op::Variable)
            .map(|_| "Function".to_string())
            .collect();
        let mut found = data_classes(&sm);
        found.extend(locals);
        assert_eq!(found, set(classes), "{entry}");
        let o = ops(&sm);
        for op in needed {
            assert!(o.contains(op), "{entry}: no {op:?}");
        }
        assert!(t.capabilities.contains(&spirv::Capability::RayTracingKHR));
        assert!(t.extensions.contains(&"SPV_KHR_ray_tracing"));
    }
    // The mangled name selects the same function, with or without DXC's leading byte.
    for name in [
        eps[3].name.as_str(),
        eps[3].name.trim_start_matches('\u{1}'),
    ] {
        let (t, _) = translate(&m, name, Options::default());
        assert_eq!(
            (t.entry_point.as_str(), t.stage),
            ("RayGen", Stage::RayGeneration)
        );
    }
    let e = dxil_to_spirv::translate(
        &m,
        &Options {
            entry_point: Some("NoSuchExport".into()),
            ..Options::default()
        },
    )
    .unwrap_err();
    assert!(e.to_string().contains("NoSuchExport"), "{e}");
}

#[test]
fn ray_system_values_read_their_built_ins() {
    let cases: [(&str, &str, &[&str]); 14] = [
        ("dispatch-rays-index.rgen", "RayGen", &["LaunchIdNV"]),
        ("dispatch-rays-dimensions.rgen", "RayGen", &["LaunchSizeNV"]),
        ("world-ray-origin.rany", "RayHit", &["WorldRayOriginNV"]),
        (
            "world-ray-direction.rany",
            "RayHit",
            &["WorldRayDirectionNV"],
        ),
        ("object-ray-origin.rany", "RayHit", &["ObjectRayOriginNV"]),
        (
            "object-ray-direction.rany",
            "RayHit",
            &["ObjectRayDirectionNV"],
        ),
        ("object-to-world-3x4.rany", "RayHit", &["ObjectToWorldNV"]),
        ("world-to-object-4x3.rany", "RayHit", &["WorldToObjectNV"]),
        ("ray-t-min.rany", "RayHit", &["RayTminNV"]),
        ("ray-t-current.rany", "RayHit", &["RayTmaxNV"]),
        ("rt-instance-id.rany", "RayHit", &["InstanceCustomIndexNV"]),
        ("rt-instance-index.rany", "RayHit", &["InstanceId"]),
        ("rt-primitive-index.rany", "RayHit", &["PrimitiveId"]),
        ("rt-geometry-index.rany", "RayHit", &["RayGeometryIndexKHR"]),
    ];
    for (file, entry, expect) in cases {
        let Some(m) = module_of(&format!("dxil-spirv/dxil-builtin/{file}.dxil")) else {
            return;
        };
        let (_, sm) = translate(&m, entry, Options::default());
        assert_eq!(builtins(&sm), set(expect), "{file}");
    }
    for (file, expect) in [
        ("rt-hit-kind.rany", "HitKindNV"),
        ("rt-ray-flags.rany", "IncomingRayFlagsNV"),
    ] {
        let Some(m) = module_of(&format!("dxil-spirv/dxil-builtin/{file}.dxil")) else {
            return;
        };
        let entry = dxil_to_spirv::entry_points(&m).unwrap()[0].export.clone();
        let (_, sm) = translate(&m, &entry, Options::default());
        assert_eq!(builtins(&sm), set(&[expect]), "{file}");
    }
}

#[test]
fn acceleration_structures_under_a_root_signature_are_addresses() {
    let Some(m) = module_of("dxil-spirv/resources/acceleration-structure.bindless.rgen.dxil")
    else {
        return;
    };
    // AS_Plain is t3; AS[] is t100, space1 (an unbounded array).
    for (rs, table) in [
        ("SRV(t3), SRV(t100, space=1)", false),
        (
            "SRV(t3), DescriptorTable(SRV(t100, space=1, numDescriptors=unbounded))",
            true,
        ),
        (
            "DescriptorTable(SRV(t3), SRV(t100, space=1, numDescriptors=unbounded))",
            true,
        ),
    ] {
        let rs = parse_hlsl(rs, &ParseOptions::default()).unwrap();
        let model = RootSignatureBindings::from_root_signature(
            &rs,
            &dxil_rootsig::DeviceLimits::default(),
            &dxil_rootsig::LayoutOptions::default(),
        )
        .unwrap();
        let options = Options {
            binding: Arc::new(model),
            ..Options::default()
        };
        let (t, sm) = translate(&m, "RayGen", options);
        let o = ops(&sm);
        assert!(o.contains(&Op::ConvertUToAccelerationStructureKHR));
        assert!(o.contains(&Op::TraceRayKHR));
        let addresses = t
            .bindings
            .iter()
            .any(|b| b.resource == dxil_to_spirv::BoundResource::CounterAddresses);
        assert_eq!(addresses, table);
        // No acceleration-structure descriptor is declared: every one is read through its address.
        assert!(
            t.bindings
                .iter()
                .all(|b| b.descriptor_type != dxil_to_spirv::DescriptorType::AccelerationStructure)
        );
    }
}

/// The local root signature dxil-spirv's test runner gives its `.local-root-signature.` shaders: root constants
/// b0 (5 words) and b1 (6 words) of space 15, root descriptors t1, u1, t2, u2, b2, then one table per class at
/// register 3 (unbounded) whose descriptors start 10 (SRV), 11 (UAV), 12 (CBV), 13 (sampler) slots into it;
/// descriptor handles of 64-byte (resources) and 32-byte (samplers) descriptors.
fn runner_local_root_signature() -> dxil_to_spirv::LocalRootSignature {
    use dxil_to_spirv::{LocalParameter as P, LocalRange, ResourceClass as C};
    let table = |class, offset| {
        P::Table(vec![LocalRange {
            class,
            space: 15,
            register: 3,
            count: u32::MAX,
            offset,
        }])
    };
    let descriptor = |class, register| P::Descriptor {
        class,
        space: 15,
        register,
    };
    dxil_to_spirv::LocalRootSignature {
        parameters: vec![
            P::Constants {
                space: 15,
                register: 0,
                words: 5,
            },
            P::Constants {
                space: 15,
                register: 1,
                words: 6,
            },
            descriptor(C::Srv, 1),
            descriptor(C::Uav, 1),
            descriptor(C::Srv, 2),
            descriptor(C::Uav, 2),
            descriptor(C::Cbv, 2),
            table(C::Srv, 10),
            table(C::Uav, 11),
            table(C::Cbv, 12),
            table(C::Sampler, 13),
        ],
        table_shift: [6, 5],
    }
}

#[test]
fn local_root_signature_arguments_come_from_the_shader_record() {
    let Some(corpus) = corpus_dir() else { return };
    let lrs = Arc::new(runner_local_root_signature());
    assert_eq!(lrs.layout().1, 120);
    let shaders: Vec<_> = shaders_of(&corpus, &["lib_6_"])
        .into_iter()
        .filter(|s| s.name.contains(".local-root-signature."))
        .collect();
    assert_eq!(
        shaders.len(),
        10,
        "local-root-signature shaders of the corpus"
    );
    for s in &shaders {
        let bytes = std::fs::read(s.file("dxil")).unwrap();
        let m = dxil_to_spirv::read_container(&bytes).unwrap();
        for e in dxil_to_spirv::entry_points(&m).unwrap() {
            let options = Options {
                local_root_signature: Some(lrs.clone()),
                ..Options::default()
            };
            let (t, sm) = translate(&m, &e.export, options);
            let entry = dxil_to_spirv::dxil::read_entry(&m, Some(&e.export)).unwrap();
            let local = entry.resources.iter().any(|r| r.space == 15);
            assert_eq!(
                data_classes(&sm).contains("ShaderRecordBufferNV"),
                local,
                "{} [{}]: no shader record",
                s.name,
                e.export
            );
            // Space 15 is the local root signature's: nothing of it is bound as a register (set 15).
            assert!(
                t.bindings.iter().all(|b| b.set != 15),
                "{} [{}]: {:?}",
                s.name,
                e.export,
                t.bindings
            );
        }
    }
    // Under a global root signature, local tables index its heap arrays (no directly-indexed flag needed).
    let m = module_of("dxil-spirv/resources/rt-resources.bindless.local-root-signature.rmiss.dxil")
        .unwrap();
    let rs = parse_hlsl(
        "DescriptorTable(SRV(t0, numDescriptors=2), SRV(t0, space=1, numDescriptors=unbounded))",
        &ParseOptions::default(),
    )
    .unwrap();
    let model = RootSignatureBindings::from_root_signature(
        &rs,
        &dxil_rootsig::DeviceLimits::default(),
        &dxil_rootsig::LayoutOptions::default(),
    )
    .unwrap();
    let options = Options {
        binding: Arc::new(model),
        local_root_signature: Some(lrs.clone()),
        ..Options::default()
    };
    let (t, sm) = translate(&m, "RayMiss", options);
    assert!(data_classes(&sm).contains("ShaderRecordBufferNV"));
    assert!(
        t.bindings
            .iter()
            .any(|b| b.resource == dxil_to_spirv::BoundResource::Heap { sampler: true }),
        "{:#?}",
        t.bindings
    );
    // Without it, the same shaders bind space 15 as registers.
    let m = module_of("dxil-spirv/resources/rt-resources.bindless.local-root-signature.rmiss.dxil")
        .unwrap();
    let (t, sm) = translate(&m, "RayMiss", Options::default());
    assert!(!data_classes(&sm).contains("ShaderRecordBufferNV"));
    assert!(t.bindings.iter().any(|b| b.set == 15));
}

#[test]
fn local_root_signatures_of_the_corpus_lay_out_records() {
    let Some(corpus) = corpus_dir() else { return };
    let bytes = std::fs::read(corpus.join("rootsig/local_rs.rs1_1.dxil")).unwrap();
    let rs = dxil_rootsig::RootSignature::from_container(&bytes).unwrap();
    let l = dxil_to_spirv::LocalRootSignature::from_root_signature(&rs).unwrap();
    // RootConstants(2, b0), DescriptorTable(SRV(t0, numDescriptors=2)).
    assert_eq!(l.layout(), (vec![0, 8], 16));
}

/// A corpus listing with `from` replaced by `to`, parsed.
fn edited_listing(name: &str, from: &str, to: &str) -> Option<dxil_module::Module> {
    let corpus = corpus_dir()?;
    let text = std::fs::read_to_string(corpus.join(name)).unwrap();
    assert!(text.contains(from), "{name}: no `{from}`");
    Some(dxil_text::parse_module(&text.replace(from, to)).unwrap_or_else(|e| panic!("{name}: {e}")))
}

/// The ids of the module's variables of a storage class.
fn variables(m: &Module, sc: StorageClass) -> Vec<u32> {
    m.types_global_values
        .iter()
        .filter(|i| {
            i.class.opcode == Op::Variable && i.operands.first() == Some(&Operand::StorageClass(sc))
        })
        .filter_map(|i| i.result_id)
        .collect()
}

#[test]
fn ignore_hit_followed_by_code_ends_the_invocation_in_a_helper() {
    // The any-hit shader's store moved after IgnoreHit, which then no longer ends its block: the store must not
    // run, so IgnoreHit calls a function that ends the invocation.
    let Some(m) = edited_listing(
        "vkd3d-proton/rt/default.lib_6_3.ll",
        "  store float %4, float* %5, align 4\n  call void @dx.op.ignoreHit(i32 155)  ; IgnoreHit()\n  unreachable",
        "  call void @dx.op.ignoreHit(i32 155)\n  store float %4, float* %5, align 4\n  ret void",
    ) else {
        return;
    };
    let (_, sm) = translate(&m, "RayAnyTriangle", Options::default());
    assert_eq!(sm.functions.len(), 2);
    let helper = sm
        .functions
        .iter()
        .find(|f| {
            f.blocks[0].instructions.last().map(|i| i.class.opcode)
                == Some(Op::IgnoreIntersectionKHR)
        })
        .expect("a function ending in OpIgnoreIntersectionKHR");
    let helper_id = helper.def.as_ref().and_then(|d| d.result_id).unwrap();
    let main = &sm.functions[sm.functions.len() - 1];
    let body: Vec<_> = main
        .blocks
        .iter()
        .flat_map(|b| b.instructions.iter())
        .collect();
    let call = body
        .iter()
        .position(|i| {
            i.class.opcode == Op::FunctionCall && i.operands[0] == Operand::IdRef(helper_id)
        })
        .expect("a call of the helper");
    let store = body
        .iter()
        .position(|i| i.class.opcode == Op::Store)
        .unwrap();
    assert!(call < store, "the helper is called before the store");
}

#[test]
fn payloads_that_are_no_alloca_are_copied_in_and_out() {
    // The miss shader passes its incoming payload to TraceRay itself (DXC copies it into a local first).
    let Some(m) = edited_listing(
        "dxil-spirv/stages/raymiss-chain.rmiss.ll",
        "%struct.Payload* nonnull %2)",
        "%struct.Payload* %payload)",
    ) else {
        return;
    };
    let (_, sm) = translate(&m, "RayMiss", Options::default());
    let incoming = variables(&sm, StorageClass::IncomingRayPayloadKHR);
    let outgoing = variables(&sm, StorageClass::RayPayloadKHR);
    assert_eq!((incoming.len(), outgoing.len()), (1, 1));
    let body: Vec<_> = sm.functions[0]
        .blocks
        .iter()
        .flat_map(|b| b.instructions.iter())
        .collect();
    let trace = body
        .iter()
        .position(|i| i.class.opcode == Op::TraceRayKHR)
        .unwrap();
    assert_eq!(
        body[trace].operands.last(),
        Some(&Operand::IdRef(outgoing[0]))
    );
    let stores_to = |v: u32| {
        body.iter()
            .enumerate()
            .filter(move |(_, i)| i.class.opcode == Op::Store && i.operands[0] == Operand::IdRef(v))
            .map(|(k, _)| k)
            .collect::<Vec<_>>()
    };
    // Copied into the outgoing payload before the call, back into the incoming one after it.
    assert!(stores_to(outgoing[0]).iter().any(|&k| k < trace));
    assert!(stores_to(incoming[0]).iter().any(|&k| k > trace));
}
