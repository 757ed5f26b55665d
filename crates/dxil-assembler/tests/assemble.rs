//! Assembles the hand-written listings in `tests/data` and checks each generated part against
//! DXC's rules for the listing's validator version: which rows a signature holds and how they
//! are ordered, registers, masks, system values, component types and minimum precision, name
//! sharing and padding; the PSV0 version, stage fields, element tables and dependency tables;
//! the part order, HASH and digest. The corpus test checks the same parts byte for byte against
//! DXC's; these run without the corpus and pin the rules one by one.

use dxil_assembler::{AssembleOptions, Error, assemble, build_parts, root_signature_payload};
use dxil_container::parts::psv::{Info1Union, StageInfo};
use dxil_container::{
    ComponentType, Container, DigestMode, DigestStatus, FourCC, InputPrimitive, MinPrecision,
    PrimitiveTopology, ShaderKind, SystemValue, TessellatorDomain, write_container,
};

fn data(name: &str) -> String {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The listing with its validator version (`!2`, which `!dx.valver` names) set to 1.`minor`.
fn with_valver(text: &str, minor: u32) -> String {
    assert!(text.contains("!dx.valver = !{!2}"));
    text.lines()
        .map(|l| {
            if l.starts_with("!2 = ") {
                format!("!2 = !{{i32 1, i32 {minor}}}")
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn build(text: &str) -> Vec<u8> {
    match assemble(text, &AssembleOptions::default()) {
        Ok(c) => c,
        Err(e) => panic!("{e}"),
    }
}

fn fourccs(c: &Container<'_>) -> Vec<String> {
    c.parts().iter().map(|p| p.fourcc.to_string()).collect()
}

/// Lines that are not comments or blank.
fn code_lines(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with(';'))
        .map(|l| l.split("  ;").next().unwrap_or(l))
        .collect()
}

#[test]
fn test_listings_are_written_as_dis_prints_them() {
    for name in [
        "vs_passthrough.ll",
        "ps_depth.ll",
        "ds_isoline.ll",
        "gs_streams.ll",
        "lib_callable.ll",
    ] {
        let text = data(name);
        let m = dxil_text::parse_module(&text).unwrap();
        let printed = dxil_text::module_to_string(&m);
        assert_eq!(code_lines(&printed), code_lines(&text), "{name}");
    }
}

#[test]
fn vertex_shader_at_validator_1_8() {
    let bytes = build(&data("vs_passthrough.ll"));
    let c = Container::parse(&bytes).unwrap();
    assert_eq!(
        fourccs(&c),
        ["SFI0", "ISG1", "OSG1", "PSV0", "HASH", "DXIL"]
    );
    assert_eq!(c.digest_status(), DigestStatus::Signed);
    assert!(c.parts().iter().all(|p| p.data.len() % 4 == 0));

    // Inputs: rows by register; the two TEXCOORDs share a row and (from 1.7) their name.
    let isg = c.input_signature().unwrap().unwrap();
    let rows: Vec<_> = isg
        .elements
        .iter()
        .map(|e| (e.name, e.semantic_index, e.register, e.mask, e.rw_mask))
        .collect();
    assert_eq!(
        rows,
        [
            ("POSITION", 0, 0, 0xf, 0xf),
            ("TEXCOORD", 0, 1, 0x3, 0x3),
            // One column at column 2: mask and usage are shifted there.
            ("TEXCOORD", 1, 1, 0x4, 0x4),
        ]
    );
    assert_eq!(isg.elements[1].name_offset, isg.elements[2].name_offset);
    assert!(
        isg.elements
            .iter()
            .all(|e| e.component_type == ComponentType::Float32
                && e.system_value == SystemValue::Undefined)
    );

    // Outputs: a two-row element gets consecutive registers; never-writes is the complement
    // of the usage.
    let osg = c.output_signature().unwrap().unwrap();
    let rows: Vec<_> = osg
        .elements
        .iter()
        .map(|e| (e.name, e.semantic_index, e.register, e.mask, e.rw_mask))
        .collect();
    assert_eq!(
        rows,
        [
            ("SV_Position", 0, 0, 0xf, 0x0),
            ("TEXCOORD", 0, 1, 0x3, 0xc),
            ("TEXCOORD", 1, 2, 0x3, 0xc),
            ("COLOR", 0, 3, 0x7, 0xa),
        ]
    );
    assert_eq!(osg.elements[0].system_value, SystemValue::Position);

    let psv = c.psv().unwrap().unwrap();
    assert_eq!(psv.version, 3);
    let info = &psv.runtime_info;
    assert_eq!(
        info.stage_info,
        StageInfo::Vertex {
            output_position_present: 1
        }
    );
    assert_eq!(
        (info.min_wave_lane_count, info.max_wave_lane_count),
        (0, u32::MAX)
    );
    let v1 = info.v1.unwrap();
    assert_eq!(v1.shader_stage, ShaderKind::Vertex);
    assert_eq!(
        (
            v1.sig_input_elements,
            v1.sig_output_elements,
            v1.sig_input_vectors
        ),
        (3, 3, 2)
    );
    assert_eq!(v1.sig_output_vectors, [4, 0, 0, 0]);
    assert_eq!(psv.entry_function_name().unwrap().unwrap(), "main");
    let names: Vec<_> = psv
        .output_elements
        .iter()
        .map(|e| psv.element_name(e).unwrap())
        .collect();
    // System values have no name in PSV0.
    assert_eq!(names, ["", "TEXCOORD", "COLOR"]);
    assert_eq!(
        psv.semantic_indices(&psv.output_elements[1]).unwrap(),
        [0, 1]
    );
    assert_eq!(psv.output_elements[1].rows, 2);
    // The dependency table is the serialized !dx.viewIdState after its two counts.
    assert_eq!(psv.input_to_output_tables[0], [1, 2, 4, 8, 16, 32, 1280, 0]);
    assert!(psv.view_id_output_masks.iter().all(|m| m.is_empty()));

    let hash = c.shader_hash().unwrap().unwrap();
    let program = c.program().unwrap().unwrap();
    assert_eq!(hash.digest, dxil_container::hash::md5(program.bitcode));
    assert_eq!((program.sm_major, program.sm_minor), (6, 0));
    assert_eq!(program.shader_kind, ShaderKind::Vertex);
}

#[test]
fn vertex_shader_at_validator_1_4_uses_the_old_rules() {
    let bytes = build(&with_valver(&data("vs_passthrough.ll"), 4));
    let c = Container::parse(&bytes).unwrap();
    // No HASH before 1.5.
    assert_eq!(fourccs(&c), ["SFI0", "ISG1", "OSG1", "PSV0", "DXIL"]);
    let isg = c.input_signature().unwrap().unwrap();
    // Inputs read nothing; names are not shared, and the part is not padded.
    assert!(isg.elements.iter().all(|e| e.rw_mask == 0));
    assert_ne!(isg.elements[1].name_offset, isg.elements[2].name_offset);
    assert_eq!(
        c.part(FourCC::ISG1).unwrap().data.len(),
        8 + 3 * 32 + "POSITION\0TEXCOORD\0TEXCOORD\0".len()
    );
    let osg = c.output_signature().unwrap().unwrap();
    let never: Vec<u8> = osg.elements.iter().map(|e| e.rw_mask).collect();
    assert_eq!(never, [0xf0, 0xfc, 0xfc, 0xf8]);
    let psv = c.psv().unwrap().unwrap();
    assert_eq!(psv.version, 1);
    assert_eq!(psv.runtime_info.num_threads, None);
    assert_eq!(psv.runtime_info.entry_function_name, None);

    // 1.0 (also what a module without !dx.valver gets): PSV0 version 0.
    let bytes = build(&with_valver(&data("vs_passthrough.ll"), 0));
    let psv_v0 = Container::parse(&bytes).unwrap().psv().unwrap().unwrap();
    assert_eq!(psv_v0.version, 0);
    assert!(psv_v0.runtime_info.v1.is_none());
    let no_valver = data("vs_passthrough.ll").replace("!dx.valver = !{!2}\n", "");
    let c = build(&no_valver);
    assert_eq!(
        Container::parse(&c)
            .unwrap()
            .psv()
            .unwrap()
            .unwrap()
            .version,
        0
    );

    // 0.0 ranks above every 1.x: the newest rules.
    let latest = data("vs_passthrough.ll").replace("!2 = !{i32 1, i32 8}", "!2 = !{i32 0, i32 0}");
    let c = build(&latest);
    let c = Container::parse(&c).unwrap();
    assert_eq!(c.psv().unwrap().unwrap().version, 4);
    assert!(c.shader_hash().is_some());
}

#[test]
fn pixel_shader_at_validator_1_6() {
    let text = data("ps_depth.ll");
    let bytes = build(&text);
    let c = Container::parse(&bytes).unwrap();
    assert_eq!(
        fourccs(&c),
        ["SFI0", "ISG1", "OSG1", "PSV0", "HASH", "DXIL"]
    );
    // Min precision without native 16-bit types.
    assert_eq!(c.feature_info().unwrap().unwrap().flags, 0x10);

    let isg = c.input_signature().unwrap().unwrap();
    let rows: Vec<_> = isg
        .elements
        .iter()
        .map(|e| (e.name, e.register, e.system_value, e.rw_mask))
        .collect();
    // SV_Coverage has no row but its name is laid out; SV_SampleIndex is unallocated.
    assert_eq!(
        rows,
        [
            ("SV_Position", 0, SystemValue::Position, 0x3),
            ("COLOR", 1, SystemValue::Undefined, 0xf),
            ("SV_SampleIndex", u32::MAX, SystemValue::SampleIndex, 0),
        ]
    );
    assert_eq!(isg.extra_names.len(), 1);
    assert_eq!(isg.extra_names[0].name, "SV_Coverage");
    assert_eq!(isg.elements[1].component_type, ComponentType::Float16);
    assert_eq!(isg.elements[1].min_precision, MinPrecision::Float16);
    assert_eq!(isg.elements[2].component_type, ComponentType::UInt32);
    // Before 1.7 nothing pads the part.
    assert_eq!(
        c.part(FourCC::ISG1).unwrap().data.len(),
        8 + 3 * 32 + "SV_Position\0COLOR\0SV_SampleIndex\0SV_Coverage\0".len()
    );

    let osg = c.output_signature().unwrap().unwrap();
    let rows: Vec<_> = osg
        .elements
        .iter()
        .map(|e| {
            (
                e.semantic_index,
                e.register,
                e.system_value,
                e.mask,
                e.rw_mask,
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            (0, 0, SystemValue::Target, 0xf, 0),
            (1, 1, SystemValue::Target, 0xf, 0),
            (0, u32::MAX, SystemValue::Depth, 0x1, 0xe),
        ]
    );
    // Before 1.7 only system values share their name.
    assert_eq!(osg.elements[0].name_offset, osg.elements[1].name_offset);

    let psv = c.psv().unwrap().unwrap();
    assert_eq!(psv.version, 2);
    assert_eq!(
        psv.runtime_info.stage_info,
        StageInfo::Pixel {
            depth_output: 1,
            sample_frequency: 1
        }
    );
    assert_eq!(psv.runtime_info.num_threads, Some([0, 0, 0]));
    let v1 = psv.runtime_info.v1.unwrap();
    // Every metadata element is listed (SV_Coverage too); vectors count allocated rows.
    assert_eq!((v1.sig_input_elements, v1.sig_input_vectors), (4, 2));
    assert_eq!((v1.sig_output_elements, v1.sig_output_vectors[0]), (3, 2));
    assert!(!psv.input_elements[2].allocated);
    assert!(psv.input_elements[1].allocated);

    // With native 16-bit types there is no minimum precision.
    let native = text.replace("!{i32 0, i64 32}", "!{i32 0, i64 8388640}");
    assert_ne!(native, text);
    let bytes = build(&native);
    let c = Container::parse(&bytes).unwrap();
    let isg = c.input_signature().unwrap().unwrap();
    assert_eq!(isg.elements[1].component_type, ComponentType::Float16);
    assert_eq!(isg.elements[1].min_precision, MinPrecision::Default);
    assert_eq!(c.feature_info().unwrap().unwrap().flags, 0x40000);
}

#[test]
fn domain_shader_on_the_isoline_domain() {
    let bytes = build(&data("ds_isoline.ll"));
    let c = Container::parse(&bytes).unwrap();
    assert_eq!(
        fourccs(&c),
        ["SFI0", "ISG1", "OSG1", "PSG1", "PSV0", "HASH", "DXIL"]
    );
    let pc = c.patch_constant_signature().unwrap().unwrap();
    let rows: Vec<_> = pc
        .elements
        .iter()
        .map(|e| {
            (
                e.semantic_index,
                e.register,
                e.system_value,
                e.mask,
                e.rw_mask,
            )
        })
        .collect();
    // A domain shader reads its patch constants: the read mask is the usage at column 3.
    assert_eq!(
        rows,
        [
            (0, 0, SystemValue::FinalLineDensityTessfactor, 0x8, 0x8),
            (1, 1, SystemValue::FinalLineDetailTessfactor, 0x8, 0x8),
        ]
    );
    let psv = c.psv().unwrap().unwrap();
    assert_eq!(
        psv.runtime_info.stage_info,
        StageInfo::Domain {
            input_control_point_count: 2,
            output_position_present: 1,
            tessellator_domain: TessellatorDomain::IsoLine
        }
    );
    let v1 = psv.runtime_info.v1.unwrap();
    assert_eq!(
        v1.stage_union,
        Info1Union::PatchConstant {
            sig_patch_const_vectors: 2
        }
    );
    assert_eq!(psv.patch_const_or_prim_elements.len(), 1);
    assert_eq!(psv.patch_const_or_prim_elements[0].start_col, 3);
    // No !dx.viewIdState: the tables are there, zero.
    assert_eq!(psv.input_to_output_tables[0], [0; 4]);
    assert_eq!(psv.patch_const_input_to_output_table, [0; 8]);
}

#[test]
fn geometry_shader_streams() {
    let bytes = build(&data("gs_streams.ll"));
    let c = Container::parse(&bytes).unwrap();
    let osg = c.output_signature().unwrap().unwrap();
    let rows: Vec<_> = osg
        .elements
        .iter()
        .map(|e| (e.stream, e.name, e.register))
        .collect();
    assert_eq!(rows, [(0, "SV_Position", 0), (1, "TEXCOORD", 0)]);
    let psv = c.psv().unwrap().unwrap();
    assert_eq!(
        psv.runtime_info.stage_info,
        StageInfo::Geometry {
            input_primitive: InputPrimitive::Point,
            output_topology: PrimitiveTopology::TriangleStrip,
            output_stream_mask: 3,
            output_position_present: 1
        }
    );
    let v1 = psv.runtime_info.v1.unwrap();
    assert_eq!(
        v1.stage_union,
        Info1Union::Geometry {
            max_vertex_count: 4
        }
    );
    assert_eq!(v1.sig_output_vectors, [1, 1, 0, 0]);
    assert_eq!(psv.output_elements[1].output_stream, 1);
    // One input→output table per stream that has outputs.
    assert_eq!(psv.input_to_output_tables[0].len(), 4);
    assert_eq!(psv.input_to_output_tables[1].len(), 4);
    assert!(psv.input_to_output_tables[2].is_empty());
}

#[test]
fn libraries_need_runtime_data() {
    let text = data("lib_callable.ll");
    let e = assemble(&text, &AssembleOptions::default()).unwrap_err();
    assert!(matches!(e, Error::Unsupported(_)), "{e}");
    assert!(e.to_string().contains("RDAT"), "{e}");

    let allow = AssembleOptions {
        allow_library_without_rdat: true,
        ..Default::default()
    };
    let bytes = assemble(&text, &allow).unwrap();
    let c = Container::parse(&bytes).unwrap();
    assert_eq!(fourccs(&c), ["SFI0", "HASH", "DXIL"]);
    assert_eq!(
        c.program().unwrap().unwrap().shader_kind,
        ShaderKind::Library
    );

    // Given RDAT and VERS parts, they go where DXC puts them.
    let given = AssembleOptions {
        extra_parts: vec![
            (FourCC::RDAT, vec![0x10, 0, 0, 0, 0, 0, 0, 0]),
            (FourCC::VERS, vec![0; 16]),
        ],
        ..Default::default()
    };
    let bytes = assemble(&text, &given).unwrap();
    let c = Container::parse(&bytes).unwrap();
    assert_eq!(fourccs(&c), ["SFI0", "VERS", "RDAT", "HASH", "DXIL"]);

    let with_rs = AssembleOptions {
        root_signature: Some(minimal_root_signature()),
        allow_library_without_rdat: true,
        ..Default::default()
    };
    assert!(matches!(
        assemble(&text, &with_rs),
        Err(Error::Unsupported(_))
    ));
}

fn minimal_root_signature() -> Vec<u8> {
    let rs = dxil_rootsig::parse_hlsl(
        "RootFlags(ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT), CBV(b0)",
        &Default::default(),
    )
    .unwrap();
    rs.to_rts0_bytes().unwrap()
}

#[test]
fn extra_parts_and_the_root_signature_go_where_dxc_puts_them() {
    let text = data("vs_passthrough.ll");
    let rs = minimal_root_signature();
    let options = AssembleOptions {
        root_signature: Some(rs.clone()),
        extra_parts: vec![
            (FourCC::PRIV, vec![1, 2, 3]),
            (FourCC::ILDN, vec![0; 8]),
            (FourCC::STAT, vec![0; 24]),
        ],
        digest: DigestMode::Zero,
        ..Default::default()
    };
    let bytes = assemble(&text, &options).unwrap();
    let c = Container::parse(&bytes).unwrap();
    assert_eq!(
        fourccs(&c),
        [
            "SFI0", "ISG1", "OSG1", "PSV0", "RTS0", "STAT", "ILDN", "HASH", "DXIL", "PRIV"
        ]
    );
    assert_eq!(c.root_signature(), Some(rs.as_slice()));
    assert_eq!(c.digest_status(), DigestStatus::Unsigned);

    // The generated parts do not depend on what is passed through.
    let plain = build_parts(
        &dxil_text::parse_module(&text).unwrap(),
        &Default::default(),
    )
    .unwrap();
    for (fourcc, payload) in &plain {
        assert_eq!(
            c.part(*fourcc).unwrap().data,
            payload.as_slice(),
            "{fourcc}"
        );
    }

    for bad in [
        vec![(FourCC::SFI0, vec![0; 8])],
        vec![(FourCC::VERS, vec![0; 16])],
        vec![(FourCC::STAT, vec![]), (FourCC::STAT, vec![])],
        vec![(FourCC(*b"XYZW"), vec![])],
    ] {
        let o = AssembleOptions {
            extra_parts: bad,
            ..Default::default()
        };
        assert!(matches!(assemble(&text, &o), Err(Error::Unsupported(_))));
    }
}

#[test]
fn root_signatures_come_from_containers_or_raw_payloads() {
    let rs = minimal_root_signature();
    assert_eq!(root_signature_payload(&rs).unwrap(), rs);
    let blob = write_container(&[(FourCC::RTS0, rs.clone())], DigestMode::Retail).unwrap();
    assert_eq!(root_signature_payload(&blob).unwrap(), rs);
    let shader = build(&data("vs_passthrough.ll"));
    assert!(matches!(
        root_signature_payload(&shader),
        Err(Error::RootSignature(_))
    ));
    assert!(matches!(
        root_signature_payload(b"not a root signature"),
        Err(Error::RootSignature(_))
    ));
    let bad = AssembleOptions {
        root_signature: Some(vec![7; 12]),
        ..Default::default()
    };
    assert!(matches!(
        assemble(&data("vs_passthrough.ll"), &bad),
        Err(Error::RootSignature(_))
    ));
}

#[test]
fn assembling_the_printed_container_gives_the_same_bytes() {
    for name in [
        "vs_passthrough.ll",
        "ps_depth.ll",
        "ds_isoline.ll",
        "gs_streams.ll",
    ] {
        let first = build(&data(name));
        let c = Container::parse(&first).unwrap();
        let m = dxil_module::read_module(c.program().unwrap().unwrap().bitcode, 0).unwrap();
        let again = build(&dxil_text::module_to_string(&m));
        assert_eq!(first, again, "{name}");
    }
}

#[test]
fn malformed_text_fails_with_a_position() {
    let text = data("vs_passthrough.ll");
    let cases = [
        ("  ret void\n", "  ret i32 0\n", "doesn't match"),
        ("i8 0, float %1)", "i8 0, float %99)", "%99"),
        ("!dx.entryPoints = !{!5}", "!dx.entryPoints = !{!5", "','"),
        ("declare float", "declare flaot", "flaot"),
    ];
    for (from, to, what) in cases {
        assert!(text.contains(from), "{from}");
        let bad = text.replacen(from, to, 1);
        let e = assemble(&bad, &AssembleOptions::default()).unwrap_err();
        let (line, column) = e
            .line_column()
            .unwrap_or_else(|| panic!("no position in {e}"));
        let at = bad.lines().nth(line as usize - 1).unwrap();
        assert!(column as usize <= at.chars().count() + 1, "{e}");
        assert!(e.to_string().contains(what), "{e}");
    }
    // Every truncation fails cleanly (or, at a line end after the code, still assembles).
    for cut in (0..text.len()).step_by(97) {
        if !text.is_char_boundary(cut) {
            continue;
        }
        if let Err(e) = assemble(&text[..cut], &AssembleOptions::default()) {
            assert!(!e.to_string().is_empty());
        }
    }
}

#[test]
fn out_of_range_packing_does_not_panic() {
    // A start column past the row and a start row past a byte: written as DXC's arithmetic
    // gives them (or refused where a PSV0 field cannot hold them), never a panic.
    let text = data("vs_passthrough.ll");
    for (from, to) in [
        ("i32 1, i8 2, !15}", "i32 1, i8 100, !15}"),
        ("i32 1, i8 2, !15}", "i32 300, i8 2, !15}"),
        (
            "i32 2, i8 2, i32 1, i8 0, !12}",
            "i32 2, i8 9, i32 1, i8 0, !12}",
        ),
    ] {
        assert!(text.contains(from), "{from}");
        let _ = assemble(&text.replacen(from, to, 1), &AssembleOptions::default());
    }
    let too_far = text.replacen("i32 1, i8 2, !15}", "i32 300, i8 2, !15}", 1);
    let e = assemble(&too_far, &AssembleOptions::default()).unwrap_err();
    assert!(matches!(e, Error::Field { .. }), "{e}");
}

#[test]
fn missing_dxil_metadata_is_reported() {
    let text = data("vs_passthrough.ll").replace("!dx.shaderModel = !{!3}\n", "");
    let e = assemble(&text, &AssembleOptions::default()).unwrap_err();
    assert!(matches!(e, Error::Metadata(_)), "{e}");
    assert!(e.to_string().contains("dx.shaderModel"), "{e}");
    assert_eq!(e.line_column(), None);
}
