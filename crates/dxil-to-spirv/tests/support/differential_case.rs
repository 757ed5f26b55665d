//! Differential cases from DXC's outputs of one corpus shader, shared by the differential test and
//! dxil-from-spirv's execution round trip (which includes this file by path): the shader's declared
//! resources as the case declares them, and DXC's SPIR-V rebound to the registers DXC's DXIL chose.

use dxil_runtime::case::{RegisterClass, ResourceKind as CaseKind};
use dxil_runtime::differential::DeclaredResource;
use dxil_runtime::format::Format;
use dxil_to_spirv::dxil::{ComponentType, ResourceDecl};
use dxil_to_spirv::{ResourceClass, ResourceKind};
use spirv::{Decoration, Op};

/// The case format of a typed buffer: component type and count as the shader declares them.
pub fn typed_format(d: &ResourceDecl) -> Option<Format> {
    let n = d.component_count.max(1);
    let name = match d.component? {
        ComponentType::F32 => [
            "r32_float",
            "r32g32_float",
            "r32g32b32_float",
            "r32g32b32a32_float",
        ],
        ComponentType::U32 => [
            "r32_uint",
            "r32g32_uint",
            "r32g32b32_uint",
            "r32g32b32a32_uint",
        ],
        ComponentType::I32 => [
            "r32_sint",
            "r32g32_sint",
            "r32g32b32_sint",
            "r32g32b32a32_sint",
        ],
        ComponentType::F16 => [
            "r16_float",
            "r16g16_float",
            "r16g16b16a16_float",
            "r16g16b16a16_float",
        ],
        ComponentType::U16 => [
            "r16_uint",
            "r16g16_uint",
            "r16g16b16a16_uint",
            "r16g16b16a16_uint",
        ],
        ComponentType::I16 => [
            "r16_sint",
            "r16g16_sint",
            "r16g16b16a16_sint",
            "r16g16b16a16_sint",
        ],
        ComponentType::UNormF32 | ComponentType::UNormF16 => {
            ["r8_unorm", "r8g8_unorm", "r8g8b8a8_unorm", "r8g8b8a8_unorm"]
        }
        ComponentType::SNormF32 | ComponentType::SNormF16 => {
            ["r8_snorm", "r8g8_snorm", "r8g8b8a8_snorm", "r8g8b8a8_snorm"]
        }
        _ => return None,
    };
    Format::from_name(name[(n as usize - 1).min(3)])
}

/// The differential case's view of the shader's resources, or why it is not comparable.
pub fn declared(resources: &[ResourceDecl]) -> Result<Vec<DeclaredResource>, String> {
    let mut out = Vec::new();
    for d in resources {
        let kind = match d.kind {
            ResourceKind::RawBuffer => CaseKind::Raw,
            ResourceKind::StructuredBuffer => CaseKind::Structured { stride: d.stride },
            ResourceKind::TypedBuffer => CaseKind::Typed {
                format: typed_format(d)
                    .ok_or_else(|| format!("typed buffer of {:?}", d.component))?,
            },
            ResourceKind::CBuffer => CaseKind::Constant,
            k => return Err(format!("uses a {k:?}")),
        };
        if d.class == ResourceClass::Uav && d.has_counter {
            return Err("uses a UAV counter".into());
        }
        out.push(DeclaredResource {
            class: match d.class {
                ResourceClass::Srv => RegisterClass::Srv,
                ResourceClass::Uav => RegisterClass::Uav,
                ResourceClass::Cbv => RegisterClass::Cbv,
                ResourceClass::Sampler => RegisterClass::Sampler,
            },
            space: d.space,
            register: d.lower,
            count: d.count,
            kind,
        });
    }
    Ok(out)
}

/// Register bindings by resource name from DXC's listing (`; Resource Bindings:` table of `X.ll`):
/// name → (set, binding) in the default binding model.
pub fn listing_bindings(ll: &str) -> Vec<(String, u32, u32)> {
    let mut out = Vec::new();
    let mut in_table = false;
    for line in ll.lines() {
        if line.starts_with("; Resource Bindings:") {
            in_table = true;
            continue;
        }
        if !in_table {
            continue;
        }
        let Some(rest) = line.strip_prefix(';') else {
            break;
        };
        let cols: Vec<&str> = rest.split_whitespace().collect();
        if cols.is_empty() {
            if !out.is_empty() {
                break;
            }
            continue;
        }
        if cols.len() < 6 || cols[0] == "Name" || cols[0].starts_with("---") {
            continue;
        }
        // "HLSL Bind" is the second-to-last column: `t3`, `cb0`, `u0,space1` (sometimes glued to the count).
        let bind = cols[cols.len() - 2];
        let (reg, space) = match bind.split_once(",space") {
            Some((r, sp)) => (
                r,
                sp.trim_end_matches(|c: char| !c.is_ascii_digit())
                    .parse()
                    .unwrap_or(0),
            ),
            None => (bind, 0),
        };
        let (shift, num) = if let Some(n) = reg.strip_prefix("cb") {
            (0, n)
        } else if let Some(n) = reg.strip_prefix('t') {
            (100, n)
        } else if let Some(n) = reg.strip_prefix('u') {
            (200, n)
        } else if let Some(n) = reg.strip_prefix('s') {
            (300, n)
        } else {
            continue;
        };
        if let Ok(n) = num.parse::<u32>() {
            out.push((cols[0].to_string(), space, shift + n));
        }
    }
    out
}

/// DXC's SPIR-V gives resources without an explicit register implicit bindings (0, 1, ...), which the default
/// binding model cannot bind. Rewrites every named resource variable's set and binding to the register DXC's
/// DXIL assigned it (from the listing), so the same case binds both modules.
pub fn rebind_to_listing(words: &mut [u32], ll: &str) {
    let table = listing_bindings(ll);
    if table.is_empty() {
        return;
    }
    let mut names: Vec<(u32, String)> = Vec::new();
    let mut i = 5;
    while i < words.len() {
        let (n, op) = ((words[i] >> 16) as usize, words[i] & 0xFFFF);
        if n == 0 {
            break;
        }
        if op == Op::Name as u32 && i + 2 < words.len() {
            let bytes: Vec<u8> = words[i + 2..(i + n).min(words.len())]
                .iter()
                .flat_map(|w| w.to_le_bytes())
                .take_while(|&b| b != 0)
                .collect();
            names.push((words[i + 1], String::from_utf8_lossy(&bytes).into_owned()));
        }
        i += n;
    }
    let mut i = 5;
    while i < words.len() {
        let (n, op) = ((words[i] >> 16) as usize, words[i] & 0xFFFF);
        if n == 0 {
            break;
        }
        // OpDecorate %id DescriptorSet|Binding literal
        if op == Op::Decorate as u32 && n == 4 && i + 3 < words.len() {
            let id = words[i + 1];
            // Names repeat (two `cbuffer Cbuf` in different spaces): the k-th variable of a name takes the k-th
            // table row of that name.
            let entry = names.iter().position(|(x, _)| *x == id).and_then(|at| {
                let nm = &names[at].1;
                let k = names[..at].iter().filter(|(_, s)| s == nm).count();
                table.iter().filter(|(t, _, _)| t == nm).nth(k)
            });
            if let Some((_, set, binding)) = entry {
                if words[i + 2] == Decoration::DescriptorSet as u32 {
                    words[i + 3] = *set;
                } else if words[i + 2] == Decoration::Binding as u32 {
                    words[i + 3] = *binding;
                }
            }
        }
        i += n;
    }
}

/// Shaders whose results depend on the order threads of different groups (or lanes) run in, or that read memory
/// D3D12 leaves undefined, with the reason: their runs are recorded as `racy` whatever a run shows, because
/// whether the race shows on a run depends on the machine's load.
pub fn known_race(name: &str) -> Option<&'static str> {
    const OVERLAPPING_VECTORS: &str = "vector loads and stores wider than the per-thread stride overlap the next thread's (across the two groups too)";
    const RACES: &[(&str, &str)] = &[
        (
            "/uav-coherent",
            "groups communicate through a coherent UAV without ordering",
        ),
        (
            "/raw-buffer-addressing",
            "both groups store overlapping unaligned addresses",
        ),
        (
            "/cbv_hoisting",
            "group 1 indexes a one-element CBV array at 3..=6 (undefined descriptor)",
        ),
        (
            "/atomic-compare-exchange",
            "reads groupshared memory nothing initialised; compares against it",
        ),
        (
            "/cs_large_tbo_store",
            "each group reads uav[offset], which the other group stores to, and both store what they read to one feedback element",
        ),
        (
            "/constant-expression-cast",
            "reads groupshared memory nothing initialised (the result is whatever the memory held)",
        ),
        (
            "/atomics-64bit",
            "InterlockedExchange/CompareExchange results depend on lane order",
        ),
        (
            "/cs_64bit_atomics",
            "InterlockedExchange/CompareExchange results depend on lane order",
        ),
        (
            "/branch-return-2",
            "threads of both groups store to the same addresses",
        ),
        (
            "/auto-barrier/",
            "groupshared memory shared between threads with no barrier (the reference's auto-barrier tests)",
        ),
        (
            "/buffer-64bit.",
            "adjacent threads store overlapping 24-byte values 8 bytes apart",
        ),
        (
            "/bitcount-bitrev-sizes.",
            "each thread of both groups reads A[0..2] and B[0..2] and writes back what it computed from them",
        ),
        ("/raw-access/bab-double2.", OVERLAPPING_VECTORS),
        ("/raw-access/bab-double3.", OVERLAPPING_VECTORS),
        ("/raw-access/bab-double4.", OVERLAPPING_VECTORS),
        ("/raw-access/bab-float2.", OVERLAPPING_VECTORS),
        ("/raw-access/bab-float3.", OVERLAPPING_VECTORS),
        ("/raw-access/bab-float4.", OVERLAPPING_VECTORS),
        (
            "/control-flow/branch-return.comp",
            "one thread per group, each storing its result to Buf[0]: the last group to store wins",
        ),
        (
            "/resources/root-bda.root-descriptor.comp",
            "stores of 2 to 8 bytes at 2*thr .. 8*thr overlap the next threads' (across the two groups too)",
        ),
        (
            "/interleaved-unrolled-loop-breaks",
            "both groups run one chain of dependent atomics on RW[0], each step using the value the last returned",
        ),
        (
            "/cs_wave_size_",
            "group 0 stores lane counts to RW[128..256], where group 1 stores its prefix sums",
        ),
    ];
    RACES
        .iter()
        .find(|(pattern, _)| name.contains(pattern))
        .map(|(_, why)| *why)
}
