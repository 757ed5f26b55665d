//! LLVM 3.7 bitcode record codes (`FUNC_CODE_*` of LLVM's `LLVMBitCodes.h`), the one home the
//! reader, the writer and the bitstream dump's names take them from.

/// Records of a function block.
pub mod function {
    pub const DECLAREBLOCKS: u32 = 1;
    pub const INST_BINOP: u32 = 2;
    pub const INST_CAST: u32 = 3;
    pub const INST_GEP_OLD: u32 = 4;
    pub const INST_SELECT: u32 = 5;
    pub const INST_EXTRACTELT: u32 = 6;
    pub const INST_INSERTELT: u32 = 7;
    pub const INST_SHUFFLEVEC: u32 = 8;
    pub const INST_CMP: u32 = 9;
    pub const INST_RET: u32 = 10;
    pub const INST_BR: u32 = 11;
    pub const INST_SWITCH: u32 = 12;
    pub const INST_INVOKE: u32 = 13;
    pub const INST_UNREACHABLE: u32 = 15;
    pub const INST_PHI: u32 = 16;
    pub const INST_ALLOCA: u32 = 19;
    pub const INST_LOAD: u32 = 20;
    pub const INST_VAARG: u32 = 23;
    pub const INST_STORE_OLD: u32 = 24;
    pub const INST_EXTRACTVAL: u32 = 26;
    pub const INST_INSERTVAL: u32 = 27;
    pub const INST_CMP2: u32 = 28;
    pub const INST_VSELECT: u32 = 29;
    pub const INST_INBOUNDS_GEP_OLD: u32 = 30;
    pub const INST_INDIRECTBR: u32 = 31;
    pub const DEBUG_LOC_AGAIN: u32 = 33;
    pub const INST_CALL: u32 = 34;
    pub const DEBUG_LOC: u32 = 35;
    pub const INST_FENCE: u32 = 36;
    pub const INST_CMPXCHG_OLD: u32 = 37;
    pub const INST_ATOMICRMW: u32 = 38;
    pub const INST_RESUME: u32 = 39;
    pub const INST_LANDINGPAD_OLD: u32 = 40;
    pub const INST_LOADATOMIC: u32 = 41;
    pub const INST_STOREATOMIC_OLD: u32 = 42;
    pub const INST_GEP: u32 = 43;
    pub const INST_STORE: u32 = 44;
    pub const INST_STOREATOMIC: u32 = 45;
    pub const INST_CMPXCHG: u32 = 46;
    pub const INST_LANDINGPAD: u32 = 47;

    /// Every code with its name, for dumps.
    pub const NAMES: &[(u32, &str)] = &[
        (DECLAREBLOCKS, "DECLAREBLOCKS"),
        (INST_BINOP, "INST_BINOP"),
        (INST_CAST, "INST_CAST"),
        (INST_GEP_OLD, "INST_GEP_OLD"),
        (INST_SELECT, "INST_SELECT"),
        (INST_EXTRACTELT, "INST_EXTRACTELT"),
        (INST_INSERTELT, "INST_INSERTELT"),
        (INST_SHUFFLEVEC, "INST_SHUFFLEVEC"),
        (INST_CMP, "INST_CMP"),
        (INST_RET, "INST_RET"),
        (INST_BR, "INST_BR"),
        (INST_SWITCH, "INST_SWITCH"),
        (INST_INVOKE, "INST_INVOKE"),
        (INST_UNREACHABLE, "INST_UNREACHABLE"),
        (INST_PHI, "INST_PHI"),
        (INST_ALLOCA, "INST_ALLOCA"),
        (INST_LOAD, "INST_LOAD"),
        (INST_VAARG, "INST_VAARG"),
        (INST_STORE_OLD, "INST_STORE_OLD"),
        (INST_EXTRACTVAL, "INST_EXTRACTVAL"),
        (INST_INSERTVAL, "INST_INSERTVAL"),
        (INST_CMP2, "INST_CMP2"),
        (INST_VSELECT, "INST_VSELECT"),
        (INST_INBOUNDS_GEP_OLD, "INST_INBOUNDS_GEP_OLD"),
        (INST_INDIRECTBR, "INST_INDIRECTBR"),
        (DEBUG_LOC_AGAIN, "DEBUG_LOC_AGAIN"),
        (INST_CALL, "INST_CALL"),
        (DEBUG_LOC, "DEBUG_LOC"),
        (INST_FENCE, "INST_FENCE"),
        (INST_CMPXCHG_OLD, "INST_CMPXCHG_OLD"),
        (INST_ATOMICRMW, "INST_ATOMICRMW"),
        (INST_RESUME, "INST_RESUME"),
        (INST_LANDINGPAD_OLD, "INST_LANDINGPAD_OLD"),
        (INST_LOADATOMIC, "INST_LOADATOMIC"),
        (INST_STOREATOMIC_OLD, "INST_STOREATOMIC_OLD"),
        (INST_GEP, "INST_GEP"),
        (INST_STORE, "INST_STORE"),
        (INST_STOREATOMIC, "INST_STOREATOMIC"),
        (INST_CMPXCHG, "INST_CMPXCHG"),
        (INST_LANDINGPAD, "INST_LANDINGPAD"),
    ];
}
