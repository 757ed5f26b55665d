//! The dxil_spv C API (version 2.66) over dxil-to-spirv: `libdxil-spirv-c-shared.so.2`, with the ABI of dxil-spirv's
//! C library, so that a program built against dxil-spirv (vkd3d-proton) runs on dxil-rs by finding this library
//! first. The header is `include/dxil_spirv_c.h`.
//!
//! # How the calls map
//! * `dxil_spv_parse_dxil_blob` reads the container's program once ([`blob::ParsedBlob`]): entry points, stages,
//!   declared ranges. Containers of shader model 4/5 bytecode (no DXIL) are refused as unsupported.
//! * A converter records what its caller sets: the four resource remappers become a
//!   [`dxil_to_spirv::BindingResolver`] ([`resolver::CResolver`]) behind [`dxil_to_spirv::ResolverBindings`]; the
//!   root block shape, options ([`converter::add_option`]: device features, requests, heap conventions), meta
//!   descriptors and local root parameters go into [`dxil_to_spirv::Options`]. The local root parameters, in call
//!   order, are [`dxil_to_spirv::Options::local_root_signature`]; `SBT_DESCRIPTOR_SIZE_LOG2` its `table_shift` (a
//!   record's table argument is a descriptor handle, whose low word shifted right is the heap slot). The resolver is
//!   asked about a table range of a shader record with the range's own registers: only the set and binding of its
//!   heap answer count. An acceleration structure answered as a storage buffer (dxil-spirv's convention for a heap
//!   of 64-bit addresses) is read from it and converted.
//! * `dxil_spv_converter_set_entry_point` picks a library export by its mangled or demangled name. The SPIR-V entry
//!   point is `main` for every stage, as dxil-spirv names it; `get_compiled_entry_point` reports the DXIL name.
//! * dxil-spirv's default of 32-bit min precision (`MIN_PRECISION_NATIVE_16BIT` off) is
//!   [`dxil_to_spirv::Requests::min_precision_32bit`].
//! * `dxil_spv_converter_run` translates through [`dxil_to_spirv::Translator::compile`], the library's single path,
//!   on a translator kept per thread. Options the translator cannot honour make the run fail with
//!   `DXIL_SPV_ERROR_UNSUPPORTED_FEATURE`; a remapper's refusal with `DXIL_SPV_ERROR_INVALID_ARGUMENT`. The reason is
//!   sent to the thread's log callback.
//! * `dxil_spv_parsed_blob_free` hands the blob's module to [`dxil_module::recycle`]: the next blob parsed on that
//!   thread is read into its storage (a layer parses, translates and frees shader after shader on a few threads).
//!
//! # Safety at the boundary
//! Every entry point runs inside `catch_unwind`: a panic becomes `DXIL_SPV_ERROR_GENERIC` (or the neutral value of
//! a function without a result) and never unwinds into C. Null handles and null out-pointers are refused, not
//! dereferenced. Handles are boxes the caller frees with the matching `_free`.
#![allow(unsafe_code)]

pub mod abi;
pub mod blob;
pub mod converter;
mod io;
mod rdat;
mod resolver;

use std::cell::Cell;
use std::ffi::{CStr, CString, c_char, c_uint, c_void};
use std::panic::{AssertUnwindSafe, catch_unwind};

use abi::{Bool, DxilResult};
use blob::ParsedBlob;
use converter::Converter;
use dxil_to_spirv::ResourceClass;
use dxil_to_spirv::options::MetaDescriptor;
use dxil_to_spirv::{LocalParameter, LocalRange};
use resolver::Callback;

pub type ParsedBlobHandle = *mut ParsedBlob;
pub type ConverterHandle = *mut Converter;

thread_local! {
    static LOG: Cell<Option<(abi::LogCallback, *mut c_void)>> = const { Cell::new(None) };
}

/// Sends a message to the thread's log callback.
fn log(level: u32, message: &str) {
    if let Some((cb, userdata)) = LOG.with(Cell::get) {
        let mut text = message.replace('\0', " ");
        text.push('\n');
        if let Ok(c) = CString::new(text) {
            // SAFETY: the callback was registered by `dxil_spv_set_thread_log_callback` on this thread and the
            // string lives across the call.
            unsafe { cb(userdata, level, c.as_ptr()) };
        }
    }
}

/// Runs `f`, turning a panic into `fallback`.
fn guard<T>(fallback: T, f: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|_| {
        log(abi::log_level::ERROR, "internal error (a panic was caught)");
        fallback
    })
}

/// The blob behind a handle.
///
/// # Safety
/// `h` is null or a live handle from a parse function.
unsafe fn blob_ref<'a>(h: ParsedBlobHandle) -> Option<&'a mut ParsedBlob> {
    // SAFETY: per the contract, a non-null handle is a live box this library made.
    unsafe { h.as_mut() }
}

/// # Safety
/// `h` is null or a live handle from a create function.
unsafe fn conv_ref<'a>(h: ConverterHandle) -> Option<&'a mut Converter> {
    // SAFETY: per the contract, a non-null handle is a live box this library made.
    unsafe { h.as_mut() }
}

/// The bytes at `data`.
///
/// # Safety
/// `data` is valid for `size` bytes when non-null.
unsafe fn bytes<'a>(data: *const c_void, size: usize) -> Option<&'a [u8]> {
    if data.is_null() {
        return (size == 0).then_some(&[]);
    }
    // SAFETY: the caller's buffer holds `size` bytes.
    Some(unsafe { std::slice::from_raw_parts(data.cast::<u8>(), size) })
}

/// # Safety
/// `s` is null or a NUL-terminated string.
unsafe fn cstr<'a>(s: *const c_char) -> Option<&'a CStr> {
    // SAFETY: a non-null pointer is a NUL-terminated string by the API's contract.
    (!s.is_null()).then(|| unsafe { CStr::from_ptr(s) })
}

/// Writes `v` through `out` when it is not null.
///
/// # Safety
/// `out` is null or valid for a write of `T`.
unsafe fn put<T>(out: *mut T, v: T) -> bool {
    if out.is_null() {
        return false;
    }
    // SAFETY: non-null out-pointers are valid for writes by the API's contract.
    unsafe { out.write(v) };
    true
}

// ---- Version ------------------------------------------------------------------------------------------------

/// # Safety
/// Each pointer is null or valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxil_spv_get_version(
    major: *mut c_uint,
    minor: *mut c_uint,
    patch: *mut c_uint,
) {
    guard((), || {
        // SAFETY: the caller's pointers are null or writable.
        unsafe {
            put(major, 2);
            put(minor, 66);
            put(patch, 0);
        }
    })
}

// ---- Parsing ------------------------------------------------------------------------------------------------

fn parse_with(
    out: *mut ParsedBlobHandle,
    f: impl FnOnce() -> Result<Box<ParsedBlob>, blob::ParseError>,
) -> DxilResult {
    if out.is_null() {
        return abi::ERROR_INVALID_ARGUMENT;
    }
    guard(abi::ERROR_GENERIC, || match f() {
        Ok(b) => {
            // SAFETY: `out` was checked non-null; the caller made it writable.
            unsafe { out.write(Box::into_raw(b)) };
            abi::SUCCESS
        }
        Err(e) => {
            log(abi::log_level::ERROR, &e.message());
            e.code()
        }
    })
}

/// # Safety
/// `data` is valid for `size` bytes; `blob` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxil_spv_parse_dxil_blob(
    data: *const c_void,
    size: usize,
    blob: *mut ParsedBlobHandle,
) -> DxilResult {
    // SAFETY: the caller's buffer.
    let Some(b) = (unsafe { bytes(data, size) }) else {
        return abi::ERROR_INVALID_ARGUMENT;
    };
    parse_with(blob, || ParsedBlob::from_container(b, false))
}

/// # Safety
/// As [`dxil_spv_parse_dxil_blob`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxil_spv_parse_reflection_dxil_blob(
    data: *const c_void,
    size: usize,
    blob: *mut ParsedBlobHandle,
) -> DxilResult {
    // SAFETY: the caller's buffer.
    let Some(b) = (unsafe { bytes(data, size) }) else {
        return abi::ERROR_INVALID_ARGUMENT;
    };
    parse_with(blob, || ParsedBlob::from_container(b, true))
}

/// # Safety
/// As [`dxil_spv_parse_dxil_blob`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxil_spv_parse_dxil(
    data: *const c_void,
    size: usize,
    blob: *mut ParsedBlobHandle,
) -> DxilResult {
    // SAFETY: the caller's buffer.
    let Some(b) = (unsafe { bytes(data, size) }) else {
        return abi::ERROR_INVALID_ARGUMENT;
    };
    parse_with(blob, || ParsedBlob::from_bitcode(b))
}

fn disassembly(b: &mut ParsedBlob) -> *const c_char {
    if b.disassembly.is_none() {
        let text = dxil_text::module_to_string(&b.module).replace('\0', " ");
        b.disassembly = CString::new(text).ok();
    }
    b.disassembly
        .as_ref()
        .map_or(std::ptr::null(), |s| s.as_ptr())
}

/// # Safety
/// `blob` is null or a live blob.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxil_spv_parsed_blob_dump_llvm_ir(blob: ParsedBlobHandle) {
    guard((), || {
        // SAFETY: the caller's handle.
        if let Some(b) = unsafe { blob_ref(blob) } {
            eprintln!("{}", dxil_text::module_to_string(&b.module));
        }
    })
}

/// # Safety
/// `blob` is null or a live blob; `str` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxil_spv_parsed_blob_get_disassembled_ir(
    blob: ParsedBlobHandle,
    str: *mut *const c_char,
) -> DxilResult {
    guard(abi::ERROR_GENERIC, || {
        // SAFETY: the caller's handle.
        let Some(b) = (unsafe { blob_ref(blob) }) else {
            return abi::ERROR_INVALID_ARGUMENT;
        };
        let p = disassembly(b);
        if p.is_null() {
            return abi::ERROR_GENERIC;
        }
        // SAFETY: the caller's out-pointer.
        if unsafe { put(str, p) } {
            abi::SUCCESS
        } else {
            abi::ERROR_INVALID_ARGUMENT
        }
    })
}

/// # Safety
/// `blob` is null or a live blob; `data` and `size` are valid for writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxil_spv_parsed_blob_get_raw_ir(
    blob: ParsedBlobHandle,
    data: *mut *const c_void,
    size: *mut usize,
) -> DxilResult {
    guard(abi::ERROR_GENERIC, || {
        // SAFETY: the caller's handle.
        let Some(b) = (unsafe { blob_ref(blob) }) else {
            return abi::ERROR_INVALID_ARGUMENT;
        };
        if b.bitcode.is_empty() {
            return abi::ERROR_GENERIC;
        }
        if data.is_null() || size.is_null() {
            return abi::ERROR_INVALID_ARGUMENT;
        }
        // SAFETY: both out-pointers were checked non-null.
        unsafe {
            put(data, b.bitcode.as_ptr().cast());
            put(size, b.bitcode.len());
        }
        abi::SUCCESS
    })
}

/// # Safety
/// `blob` is null or a live blob.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxil_spv_parsed_blob_get_shader_stage(
    blob: ParsedBlobHandle,
) -> abi::ShaderStage {
    guard(abi::stage::UNKNOWN, || {
        // SAFETY: the caller's handle.
        unsafe { blob_ref(blob) }.map_or(abi::stage::UNKNOWN, |b| {
            b.entries.first().map_or(b.stage, |e| e.stage)
        })
    })
}

/// # Safety
/// `blob` is null or a live blob; `entry` is null or a string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxil_spv_parsed_blob_get_shader_stage_for_entry(
    blob: ParsedBlobHandle,
    entry: *const c_char,
) -> abi::ShaderStage {
    guard(abi::stage::UNKNOWN, || {
        // SAFETY: the caller's handle and string.
        let (Some(b), Some(name)) = (unsafe { blob_ref(blob) }, unsafe { cstr(entry) }) else {
            return abi::stage::UNKNOWN;
        };
        b.entry_index(name.to_bytes())
            .map_or(abi::stage::UNKNOWN, |i| b.entries[i].stage)
    })
}

/// # Safety
/// `blob` is null or a live blob; `entry` is null or a string; `index` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxil_spv_parsed_blob_get_entry_index_by_name(
    blob: ParsedBlobHandle,
    entry: *const c_char,
    index: *mut c_uint,
) -> DxilResult {
    guard(abi::ERROR_GENERIC, || {
        // SAFETY: the caller's handle and string.
        let (Some(b), Some(name)) = (unsafe { blob_ref(blob) }, unsafe { cstr(entry) }) else {
            return abi::ERROR_INVALID_ARGUMENT;
        };
        match b.entry_index(name.to_bytes()) {
            // SAFETY: the caller's out-pointer.
            Some(i) if unsafe { put(index, i as c_uint) } => abi::SUCCESS,
            Some(_) => abi::ERROR_INVALID_ARGUMENT,
            None => abi::ERROR_GENERIC,
        }
    })
}

/// # Safety
/// `blob` is null or a live blob; `count` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxil_spv_parsed_blob_get_num_entry_points(
    blob: ParsedBlobHandle,
    count: *mut c_uint,
) -> DxilResult {
    guard(abi::ERROR_GENERIC, || {
        // SAFETY: the caller's handle.
        let Some(b) = (unsafe { blob_ref(blob) }) else {
            return abi::ERROR_INVALID_ARGUMENT;
        };
        // SAFETY: the caller's out-pointer.
        if unsafe { put(count, b.entries.len() as c_uint) } {
            abi::SUCCESS
        } else {
            abi::ERROR_INVALID_ARGUMENT
        }
    })
}

fn entry_name(
    blob: ParsedBlobHandle,
    index: c_uint,
    out: *mut *const c_char,
    demangled: bool,
) -> DxilResult {
    guard(abi::ERROR_GENERIC, || {
        // SAFETY: the caller's handle.
        let Some(b) = (unsafe { blob_ref(blob) }) else {
            return abi::ERROR_INVALID_ARGUMENT;
        };
        let Some(e) = b.entries.get(index as usize) else {
            return abi::ERROR_INVALID_ARGUMENT;
        };
        let s = if demangled { e.demangled() } else { &e.mangled };
        // SAFETY: the caller's out-pointer.
        if unsafe { put(out, s.as_ptr()) } {
            abi::SUCCESS
        } else {
            abi::ERROR_INVALID_ARGUMENT
        }
    })
}

/// # Safety
/// `blob` is null or a live blob; `mangled_entry` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxil_spv_parsed_blob_get_entry_point_name(
    blob: ParsedBlobHandle,
    index: c_uint,
    mangled_entry: *mut *const c_char,
) -> DxilResult {
    entry_name(blob, index, mangled_entry, false)
}

/// # Safety
/// As [`dxil_spv_parsed_blob_get_entry_point_name`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxil_spv_parsed_blob_get_entry_point_demangled_name(
    blob: ParsedBlobHandle,
    index: c_uint,
    demangled_entry: *mut *const c_char,
) -> DxilResult {
    entry_name(blob, index, demangled_entry, true)
}

/// Work-graph node inputs: this translator has no node entry points, so every entry reports "no node" (empty id,
/// no payload, launch type invalid).
///
/// # Safety
/// `blob` is null or a live blob; `data` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxil_spv_parsed_blob_get_entry_point_node_input(
    blob: ParsedBlobHandle,
    index: c_uint,
    data: *mut abi::NodeInputData,
) -> DxilResult {
    guard(abi::ERROR_GENERIC, || {
        // SAFETY: the caller's handle.
        let Some(b) = (unsafe { blob_ref(blob) }) else {
            return abi::ERROR_INVALID_ARGUMENT;
        };
        if index as usize >= b.entries.len() {
            return abi::ERROR_INVALID_ARGUMENT;
        }
        let empty = c"".as_ptr();
        let d = abi::NodeInputData {
            node_id: empty,
            payload_stride: 0,
            launch_type: 0,
            node_array_index: 0,
            dispatch_grid_offset: 0,
            dispatch_grid_type_bits: 0,
            dispatch_grid_components: 0,
            broadcast_grid: [0; 3],
            thread_group_size_spec_id: [0; 3],
            max_broadcast_grid_spec_id: [0; 3],
            recursion_factor: 0,
            coalesce_factor: 0,
            node_share_input_id: empty,
            node_share_input_array_index: 0,
            local_root_arguments_table_index: 0,
            is_indirect_bda_stride_program_entry_spec_id: 0,
            is_entry_point_spec_id: 0,
            dispatch_grid_is_upper_bound_spec_id: 0,
            is_static_broadcast_node_spec_id: 0,
            dispatch_grid_is_upper_bound: abi::FALSE,
            node_track_rw_input_sharing: abi::FALSE,
            is_program_entry: abi::FALSE,
        };
        // SAFETY: the caller's out-pointer.
        if unsafe { put(data, d) } {
            abi::SUCCESS
        } else {
            abi::ERROR_INVALID_ARGUMENT
        }
    })
}

/// # Safety
/// `blob` is null or a live blob; `num_outputs` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxil_spv_parsed_blob_get_entry_point_num_node_outputs(
    blob: ParsedBlobHandle,
    index: c_uint,
    num_outputs: *mut c_uint,
) -> DxilResult {
    guard(abi::ERROR_GENERIC, || {
        // SAFETY: the caller's handle.
        let Some(b) = (unsafe { blob_ref(blob) }) else {
            return abi::ERROR_INVALID_ARGUMENT;
        };
        if index as usize >= b.entries.len() {
            return abi::ERROR_INVALID_ARGUMENT;
        }
        // SAFETY: the caller's out-pointer.
        if unsafe { put(num_outputs, 0) } {
            abi::SUCCESS
        } else {
            abi::ERROR_INVALID_ARGUMENT
        }
    })
}

/// No entry has node outputs: every index is out of range.
///
/// # Safety
/// `blob` is null or a live blob.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxil_spv_parsed_blob_get_entry_point_node_output(
    blob: ParsedBlobHandle,
    _index: c_uint,
    _output_index: c_uint,
    _data: *mut abi::NodeOutputData,
) -> DxilResult {
    let _ = blob;
    abi::ERROR_INVALID_ARGUMENT
}

/// # Safety
/// `blob` is null or a live blob; each callback is null or callable with `userdata`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxil_spv_parsed_blob_scan_resources(
    blob: ParsedBlobHandle,
    srv_remapper: Option<abi::SrvRemapper>,
    sampler_remapper: Option<abi::SamplerRemapper>,
    cbv_remapper: Option<abi::CbvRemapper>,
    uav_remapper: Option<abi::UavRemapper>,
    userdata: *mut c_void,
) -> DxilResult {
    guard(abi::ERROR_GENERIC, || {
        // SAFETY: the caller's handle.
        let Some(b) = (unsafe { blob_ref(blob) }) else {
            return abi::ERROR_INVALID_ARGUMENT;
        };
        let stage = b.entries.first().map_or(b.stage, |e| e.stage);
        for r in &b.ranges {
            let d = abi::D3dBinding {
                stage,
                kind: resolver::kind_number(r.kind),
                resource_index: r.range_id,
                register_space: r.space,
                register_index: r.lower,
                range_size: r.count,
                alignment: r.alignment(),
            };
            // The answers are not used: the scan only reports what the module declares.
            match r.class {
                ResourceClass::Srv => {
                    if let Some(f) = srv_remapper {
                        let mut out = abi::SrvVulkanBinding::default();
                        // SAFETY: the caller's callback, callable with `userdata`; both pointers point at locals.
                        unsafe { f(userdata, &d, &mut out) };
                    }
                }
                ResourceClass::Sampler => {
                    if let Some(f) = sampler_remapper {
                        let mut out = abi::VulkanBinding::default();
                        // SAFETY: the caller's callback, callable with `userdata`; both pointers point at locals.
                        unsafe { f(userdata, &d, &mut out) };
                    }
                }
                ResourceClass::Cbv => {
                    if let Some(f) = cbv_remapper {
                        let mut out = abi::CbvVulkanBinding::default();
                        // SAFETY: the caller's callback, callable with `userdata`; both pointers point at locals.
                        unsafe { f(userdata, &d, &mut out) };
                    }
                }
                ResourceClass::Uav => {
                    if let Some(f) = uav_remapper {
                        let u = abi::UavD3dBinding {
                            d3d_binding: d,
                            has_counter: u8::from(r.has_counter),
                        };
                        let mut out = abi::UavVulkanBinding::default();
                        // SAFETY: the caller's callback, callable with `userdata`; both pointers point at locals.
                        unsafe { f(userdata, &u, &mut out) };
                    }
                }
            }
        }
        abi::SUCCESS
    })
}

/// # Safety
/// `blob` is null or a live blob.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxil_spv_parsed_blob_get_num_rdat_subobjects(
    blob: ParsedBlobHandle,
) -> c_uint {
    guard(0, || {
        // SAFETY: the caller's handle.
        unsafe { blob_ref(blob) }.map_or(0, |b| b.subobjects.len() as c_uint)
    })
}

/// An index out of range zeroes the structure.
///
/// # Safety
/// `blob` is null or a live blob; `subobject` is null or valid for a write. The names and the payload point into
/// the container the blob was parsed from (valid while it is); the exports array lives as long as the blob.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxil_spv_parsed_blob_get_rdat_subobject(
    blob: ParsedBlobHandle,
    index: c_uint,
    subobject: *mut abi::RdatSubobject,
) {
    guard((), || {
        // SAFETY: the caller's handle.
        let s = unsafe { blob_ref(blob) }.and_then(|b| b.subobjects.get(index as usize));
        let out = match s {
            Some(s) => abi::RdatSubobject {
                kind: s.kind,
                subobject_name: s.name,
                hit_group_type: s.hit_group_type,
                exports: if s.exports.is_empty() {
                    std::ptr::null()
                } else {
                    s.exports.as_ptr()
                },
                num_exports: s.exports.len() as c_uint,
                args: s.args,
                payload: s.payload.cast(),
                payload_size: s.payload_size,
            },
            None => abi::RdatSubobject {
                kind: 0,
                subobject_name: std::ptr::null(),
                hit_group_type: 0,
                exports: std::ptr::null(),
                num_exports: 0,
                args: [0; 2],
                payload: std::ptr::null(),
                payload_size: 0,
            },
        };
        // SAFETY: the caller's out-pointer.
        unsafe { put(subobject, out) };
    })
}

/// # Safety
/// `blob` is null or a live blob no converter refers to any more.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxil_spv_parsed_blob_free(blob: ParsedBlobHandle) {
    if blob.is_null() {
        return;
    }
    guard((), || {
        // SAFETY: the handle came from `Box::into_raw` in a parse function and is freed once.
        ParsedBlob::release(unsafe { Box::from_raw(blob) });
    })
}

/// # Safety
/// `callback` is null or callable with `userdata` from this thread.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxil_spv_set_thread_log_callback(
    callback: Option<abi::LogCallback>,
    userdata: *mut c_void,
) {
    LOG.with(|l| l.set(callback.map(|c| (c, userdata))));
}

// ---- Converters ---------------------------------------------------------------------------------------------

/// # Safety
/// `blob` is null or a live blob; `converter` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxil_spv_create_converter(
    blob: ParsedBlobHandle,
    converter: *mut ConverterHandle,
) -> DxilResult {
    // SAFETY: forwarded contract.
    unsafe { dxil_spv_create_converter_with_reflection(blob, std::ptr::null_mut(), converter) }
}

/// The reflection blob adds nothing this translator uses; it may be null.
///
/// # Safety
/// As [`dxil_spv_create_converter`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxil_spv_create_converter_with_reflection(
    blob: ParsedBlobHandle,
    _reflection_blob: ParsedBlobHandle,
    converter: *mut ConverterHandle,
) -> DxilResult {
    if blob.is_null() || converter.is_null() {
        return abi::ERROR_INVALID_ARGUMENT;
    }
    guard(abi::ERROR_GENERIC, || {
        let c = Box::into_raw(Converter::create(blob));
        // SAFETY: `converter` was checked non-null.
        unsafe { converter.write(c) };
        abi::SUCCESS
    })
}

/// # Safety
/// `converter` is null or a live converter, freed once.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxil_spv_converter_free(converter: ConverterHandle) {
    if converter.is_null() {
        return;
    }
    guard((), || {
        // SAFETY: the handle came from `Box::into_raw` in a create function and is freed once.
        Converter::release(unsafe { Box::from_raw(converter) });
    })
}

/// Applies `f` to the converter behind `h`; `fallback` for a null handle or a panic.
fn with_conv<T: Copy>(h: ConverterHandle, fallback: T, f: impl FnOnce(&mut Converter) -> T) -> T {
    // SAFETY: the caller's handle is null or live.
    let Some(c) = (unsafe { conv_ref(h) }) else {
        return fallback;
    };
    guard(fallback, || f(c))
}

/// # Safety
/// `converter` is null or live; `entry_point` is null or a string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxil_spv_converter_set_entry_point(
    converter: ConverterHandle,
    entry_point: *const c_char,
) {
    // SAFETY: the caller's string.
    let name = unsafe { cstr(entry_point) }.map(CStr::to_owned);
    with_conv(converter, (), |c| c.entry = name);
}

macro_rules! remapper_setter {
    ($(#[$doc:meta])* $name:ident, $field:ident, $ty:ty) => {
        $(#[$doc])*
        /// # Safety
        /// `converter` is null or live; `remapper` is null or callable with `userdata` until the converter is freed.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $name(
            converter: ConverterHandle,
            remapper: Option<$ty>,
            userdata: *mut c_void,
        ) {
            with_conv(converter, (), |c| {
                c.remappers.$field = remapper.map(|f| Callback { f, userdata })
            });
        }
    };
}

remapper_setter!(
    dxil_spv_converter_set_stage_input_remapper,
    stage_input,
    abi::StageIoRemapper
);
remapper_setter!(
    dxil_spv_converter_set_stage_output_remapper,
    stage_output,
    abi::StageIoRemapper
);
remapper_setter!(
    dxil_spv_converter_set_vertex_input_remapper,
    vertex_input,
    abi::VertexInputRemapper
);
remapper_setter!(
    dxil_spv_converter_set_stream_output_remapper,
    stream_output,
    abi::StreamOutputRemapper
);
remapper_setter!(dxil_spv_converter_set_srv_remapper, srv, abi::SrvRemapper);
remapper_setter!(
    dxil_spv_converter_set_sampler_remapper,
    sampler,
    abi::SamplerRemapper
);
remapper_setter!(dxil_spv_converter_set_uav_remapper, uav, abi::UavRemapper);
remapper_setter!(dxil_spv_converter_set_cbv_remapper, cbv, abi::CbvRemapper);

/// # Safety
/// `converter` is null or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxil_spv_converter_set_root_constant_word_count(
    converter: ConverterHandle,
    num_words: c_uint,
) {
    with_conv(converter, (), |c| c.root_words = num_words);
}

/// # Safety
/// `converter` is null or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxil_spv_converter_set_root_descriptor_count(
    converter: ConverterHandle,
    count: c_uint,
) {
    with_conv(converter, (), |c| c.root_descriptors = count);
}

fn class_of(n: u32) -> Option<ResourceClass> {
    Some(match n {
        abi::resource_class::SRV => ResourceClass::Srv,
        abi::resource_class::UAV => ResourceClass::Uav,
        abi::resource_class::CBV => ResourceClass::Cbv,
        abi::resource_class::SAMPLER => ResourceClass::Sampler,
        _ => return None,
    })
}

/// # Safety
/// `converter` is null or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxil_spv_converter_add_local_root_constants(
    converter: ConverterHandle,
    register_space: c_uint,
    register_index: c_uint,
    num_words: c_uint,
) {
    with_conv(converter, (), |c| {
        c.add_local(LocalParameter::Constants {
            space: register_space,
            register: register_index,
            words: num_words,
        })
    });
}

/// An unknown class holds no resource (with a log message) but keeps its place in the record.
///
/// # Safety
/// `converter` is null or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxil_spv_converter_add_local_root_descriptor(
    converter: ConverterHandle,
    resource_class: u32,
    register_space: c_uint,
    register_index: c_uint,
) {
    with_conv(converter, (), |c| match class_of(resource_class) {
        Some(class) => c.add_local(LocalParameter::Descriptor {
            class,
            space: register_space,
            register: register_index,
        }),
        None => {
            log(
                abi::log_level::WARN,
                "local root descriptor of an unknown class: it holds no resource",
            );
            // An empty table takes the 8 record bytes a root descriptor takes, so the parameters after it keep
            // their offsets.
            c.add_local(LocalParameter::Table(Vec::new()));
        }
    });
}

/// # Safety
/// `converter` is null or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxil_spv_converter_add_local_root_descriptor_table(
    converter: ConverterHandle,
    resource_class: u32,
    register_space: c_uint,
    register_index: c_uint,
    num_descriptors_in_range: c_uint,
    offset_in_heap: c_uint,
) {
    with_conv(converter, (), |c| {
        let Some(class) = class_of(resource_class) else {
            log(
                abi::log_level::WARN,
                "local root table range of an unknown class ignored",
            );
            return;
        };
        let range = LocalRange {
            class,
            space: register_space,
            register: register_index,
            count: num_descriptors_in_range,
            offset: offset_in_heap,
        };
        match &mut c.open_table {
            Some(t) => t.push(range),
            None => c.add_local(LocalParameter::Table(vec![range])),
        }
    });
}

/// # Safety
/// `converter` is null or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxil_spv_converter_begin_local_root_descriptor_table(
    converter: ConverterHandle,
) -> DxilResult {
    with_conv(converter, abi::ERROR_INVALID_ARGUMENT, |c| {
        if c.open_table.is_some() {
            return abi::ERROR_INVALID_ARGUMENT;
        }
        c.open_table = Some(Vec::new());
        abi::SUCCESS
    })
}

/// # Safety
/// `converter` is null or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxil_spv_converter_end_local_root_descriptor_table(
    converter: ConverterHandle,
) -> DxilResult {
    with_conv(converter, abi::ERROR_INVALID_ARGUMENT, |c| {
        match c.open_table.take() {
            Some(t) if !t.is_empty() => {
                c.add_local(LocalParameter::Table(t));
                abi::SUCCESS
            }
            _ => abi::ERROR_INVALID_ARGUMENT,
        }
    })
}

/// # Safety
/// `converter` is null or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxil_spv_converter_add_root_parameter_mapping(
    converter: ConverterHandle,
    root_parameter_index: c_uint,
    offset: c_uint,
) {
    with_conv(converter, (), |c| {
        c.requests
            .root_parameter_mappings
            .push((root_parameter_index, offset))
    });
}

/// # Safety
/// `converter` is null or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxil_spv_converter_add_root_descriptor_mapping(
    converter: ConverterHandle,
    root_parameter_index: c_uint,
    desc_set: c_uint,
    binding: c_uint,
) {
    with_conv(converter, (), |c| {
        c.requests
            .root_descriptor_mappings
            .push((root_parameter_index, desc_set, binding))
    });
}

/// # Safety
/// `converter` is null or live; `tag` is null or a string; `data` is valid for `size` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxil_spv_converter_add_non_semantic_debug_info(
    converter: ConverterHandle,
    tag: *const c_char,
    data: *const c_void,
    size: usize,
) {
    // SAFETY: the caller's string and buffer.
    let (tag, data) = unsafe { (cstr(tag), bytes(data, size)) };
    let (Some(tag), Some(data)) = (tag, data) else {
        return;
    };
    let entry = (tag.to_string_lossy().into_owned(), data.to_vec());
    with_conv(converter, (), |c| {
        c.requests.non_semantic_debug_info.push(entry)
    });
}

/// # Safety
/// `converter` is null or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxil_spv_converter_set_patch_location_offset(
    converter: ConverterHandle,
    offset: c_uint,
) {
    with_conv(converter, (), |c| c.patch_location_offset = Some(offset));
}

/// # Safety
/// `converter` is null or a live converter whose blob is live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxil_spv_converter_run(converter: ConverterHandle) -> DxilResult {
    with_conv(converter, abi::ERROR_INVALID_ARGUMENT, |c| {
        c.result = None;
        if c.open_table.is_some() {
            log(
                abi::log_level::ERROR,
                "a local root descriptor table is still open",
            );
            return abi::ERROR_INVALID_ARGUMENT;
        }
        // SAFETY: the converter's blob outlives it by the API's contract.
        let Some(blob) = (unsafe { c.blob.as_ref() }) else {
            return abi::ERROR_INVALID_ARGUMENT;
        };
        match converter::run(c, blob) {
            Ok(r) => {
                c.result = Some(r);
                abi::SUCCESS
            }
            Err(e) => {
                log(abi::log_level::ERROR, &e.message);
                e.code
            }
        }
    })
}

/// # Safety
/// `converter` is null or live; `compiled` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxil_spv_converter_get_compiled_spirv(
    converter: ConverterHandle,
    compiled: *mut abi::CompiledSpirv,
) -> DxilResult {
    with_conv(converter, abi::ERROR_INVALID_ARGUMENT, |c| {
        let Some(r) = &c.result else {
            return abi::ERROR_GENERIC;
        };
        let out = abi::CompiledSpirv {
            data: r.words.as_ptr().cast(),
            size: r.words.len() * 4,
        };
        // SAFETY: the caller's out-pointer.
        if unsafe { put(compiled, out) } {
            abi::SUCCESS
        } else {
            abi::ERROR_INVALID_ARGUMENT
        }
    })
}

/// # Safety
/// `converter` is null or live; `entry_point` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxil_spv_converter_get_compiled_entry_point(
    converter: ConverterHandle,
    entry_point: *mut *const c_char,
) -> DxilResult {
    with_conv(converter, abi::ERROR_INVALID_ARGUMENT, |c| {
        let Some(r) = &c.result else {
            return abi::ERROR_GENERIC;
        };
        // SAFETY: the caller's out-pointer.
        if unsafe { put(entry_point, r.entry_point.as_ptr()) } {
            abi::SUCCESS
        } else {
            abi::ERROR_INVALID_ARGUMENT
        }
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn dxil_spv_converter_supports_option(option: u32) -> Bool {
    u8::from(converter::known_option(option))
}

/// # Safety
/// `converter` is null or live; `option` is null or points at the structure its kind names.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxil_spv_converter_add_option(
    converter: ConverterHandle,
    option: *const u32,
) -> DxilResult {
    if option.is_null() {
        return abi::ERROR_INVALID_ARGUMENT;
    }
    with_conv(converter, abi::ERROR_INVALID_ARGUMENT, |c| {
        // SAFETY: forwarded contract.
        unsafe { converter::add_option(c, option) }
    })
}

/// Reads a result field: zero before a successful run.
fn result_of<T: Copy + Default>(
    h: ConverterHandle,
    f: impl FnOnce(&converter::RunResult) -> T,
) -> T {
    with_conv(h, T::default(), |c| {
        c.result.as_ref().map_or(T::default(), f)
    })
}

/// # Safety
/// `converter` is null or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxil_spv_converter_uses_subgroup_size(converter: ConverterHandle) -> Bool {
    result_of(converter, |r| u8::from(r.uses_subgroup_size))
}

/// Writes three values through out-pointers; `INVALID_ARGUMENT` when any is null.
fn put3(
    h: ConverterHandle,
    out: [*mut c_uint; 3],
    f: impl FnOnce(&converter::RunResult) -> [u32; 3],
) -> DxilResult {
    if h.is_null() || out.iter().any(|p| p.is_null()) {
        return abi::ERROR_INVALID_ARGUMENT;
    }
    let v = result_of(h, f);
    for (p, v) in out.into_iter().zip(v) {
        // SAFETY: every out-pointer was checked non-null.
        unsafe { put(p, v) };
    }
    abi::SUCCESS
}

/// # Safety
/// `converter` is null or live; the out-pointers are valid for writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxil_spv_converter_get_compute_workgroup_dimensions(
    converter: ConverterHandle,
    x: *mut c_uint,
    y: *mut c_uint,
    z: *mut c_uint,
) -> DxilResult {
    put3(converter, [x, y, z], |r| r.workgroup_size)
}

/// `GENERIC` for a wave size range (this query cannot express one).
///
/// # Safety
/// `converter` is null or live; `wave_size` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxil_spv_converter_get_compute_required_wave_size(
    converter: ConverterHandle,
    wave_size: *mut c_uint,
) -> DxilResult {
    if converter.is_null() || wave_size.is_null() {
        return abi::ERROR_INVALID_ARGUMENT;
    }
    let (min, max, _) = result_of(converter, |r| r.wave_size);
    if max != 0 && max != min {
        return abi::ERROR_GENERIC;
    }
    // SAFETY: checked non-null.
    unsafe { put(wave_size, min) };
    abi::SUCCESS
}

/// # Safety
/// `converter` is null or live; the out-pointers are valid for writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxil_spv_converter_get_compute_wave_size_range(
    converter: ConverterHandle,
    wave_size: *mut c_uint,
    wave_size_max: *mut c_uint,
    wave_size_preferred: *mut c_uint,
) -> DxilResult {
    put3(
        converter,
        [wave_size, wave_size_max, wave_size_preferred],
        |r| {
            let (a, b, c) = r.wave_size;
            [a, b, c]
        },
    )
}

/// No heuristics: always 0 (no suggestion).
fn no_heuristic(converter: ConverterHandle, wave_size: *mut c_uint) -> DxilResult {
    if converter.is_null() || wave_size.is_null() {
        return abi::ERROR_INVALID_ARGUMENT;
    }
    // SAFETY: checked non-null.
    unsafe { put(wave_size, 0) };
    abi::SUCCESS
}

/// # Safety
/// `converter` is null or live; `wave_size` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxil_spv_converter_get_compute_heuristic_max_wave_size(
    converter: ConverterHandle,
    wave_size: *mut c_uint,
) -> DxilResult {
    no_heuristic(converter, wave_size)
}

/// # Safety
/// `converter` is null or live; `wave_size` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxil_spv_converter_get_compute_heuristic_min_wave_size(
    converter: ConverterHandle,
    wave_size: *mut c_uint,
) -> DxilResult {
    no_heuristic(converter, wave_size)
}

/// Hull and domain shaders: the input control points of the last translation; 0 for other stages.
///
/// # Safety
/// `converter` is null or live; `patch_vertices` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxil_spv_converter_get_patch_vertex_count(
    converter: ConverterHandle,
    patch_vertices: *mut c_uint,
) -> DxilResult {
    if converter.is_null() || patch_vertices.is_null() {
        return abi::ERROR_INVALID_ARGUMENT;
    }
    let v = result_of(converter, |r| r.patch_vertex_count);
    // SAFETY: checked non-null.
    unsafe { put(patch_vertices, v) };
    abi::SUCCESS
}

/// After a hull or domain translation, the location of its patch constant row 0 (a hull shader's is the one to
/// translate its domain shader with); otherwise the offset set, else `~0u`.
///
/// # Safety
/// `converter` is null or live; `patch_location_offset` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxil_spv_converter_get_patch_location_offset(
    converter: ConverterHandle,
    patch_location_offset: *mut c_uint,
) -> DxilResult {
    if converter.is_null() || patch_location_offset.is_null() {
        return abi::ERROR_INVALID_ARGUMENT;
    }
    let v = with_conv(converter, u32::MAX, |c| {
        c.result
            .as_ref()
            .and_then(|r| r.patch_location_offset)
            .or(c.patch_location_offset)
            .unwrap_or(u32::MAX)
    });
    // SAFETY: checked non-null.
    unsafe { put(patch_location_offset, v) };
    abi::SUCCESS
}

/// # Safety
/// `converter` is null or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxil_spv_converter_uses_shader_feature(
    converter: ConverterHandle,
    feature: u32,
) -> Bool {
    // NATIVE_16BIT_OPERATIONS is the only feature.
    if feature != 0 {
        return abi::FALSE;
    }
    result_of(converter, |r| u8::from(r.native_16bit))
}

/// The translation never lowers view instancing itself, so any translated shader runs under real multiview.
///
/// # Safety
/// `converter` is null or live; `result` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxil_spv_converter_is_multiview_compatible(
    converter: ConverterHandle,
    result: *mut Bool,
) -> DxilResult {
    if converter.is_null() || result.is_null() {
        return abi::ERROR_INVALID_ARGUMENT;
    }
    let ok = with_conv(converter, false, |c| c.result.is_some());
    // SAFETY: checked non-null.
    unsafe { put(result, u8::from(ok)) };
    abi::SUCCESS
}

/// # Safety
/// `converter` is null or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxil_spv_converter_get_analysis_warnings(
    converter: ConverterHandle,
) -> *const c_char {
    with_conv(converter, std::ptr::null(), |c| {
        c.result
            .as_ref()
            .and_then(|r| r.warnings.as_ref())
            .map_or(std::ptr::null(), |w| w.as_ptr())
    })
}

/// # Safety
/// `converter` is null or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxil_spv_converter_set_meta_descriptor(
    converter: ConverterHandle,
    meta: u32,
    kind: u32,
    desc_set: c_uint,
    binding_or_push_index: c_uint,
) -> DxilResult {
    with_conv(converter, abi::ERROR_INVALID_ARGUMENT, |c| {
        if meta > 3 || kind > 5 {
            return abi::ERROR_INVALID_ARGUMENT;
        }
        c.add_meta(MetaDescriptor {
            meta,
            kind,
            set: desc_set,
            binding_or_push_index,
        });
        abi::SUCCESS
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn dxil_spv_begin_thread_allocator_context() {}

#[unsafe(no_mangle)]
pub extern "C" fn dxil_spv_end_thread_allocator_context() {}

#[unsafe(no_mangle)]
pub extern "C" fn dxil_spv_reset_thread_allocator_context() {}
