; Found by translating DXIL this repository had not seen: two outputs on one register (two SV_Target
; elements of semantic index 0). Both became Location 0 variables, which SPIR-V rejects as a conflicting
; location assignment; the translator refuses the signature, naming both elements.
target datalayout = "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"

define void @main() {
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 0, float 1.0)
  call void @dx.op.storeOutput.f32(i32 5, i32 1, i32 0, i8 0, float 2.0)
  ret void
}

declare void @dx.op.storeOutput.f32(i32, i32, i32, i8, float) #1

attributes #1 = { nounwind }

!dx.version = !{!0}
!dx.valver = !{!1}
!dx.shaderModel = !{!2}
!dx.entryPoints = !{!3}

!0 = !{i32 1, i32 0}
!1 = !{i32 1, i32 8}
!2 = !{!"ps", i32 6, i32 0}
!3 = !{void ()* @main, !"main", !4, null, null}
!4 = !{null, !8, null}
!8 = !{!9, !6}
!9 = !{i32 0, !"SV_Target", i8 9, i8 16, !10, i8 0, i32 1, i8 1, i32 0, i8 0, null}
!6 = !{i32 1, !"SV_Target", i8 9, i8 16, !10, i8 0, i32 1, i8 1, i32 0, i8 0, null}
!10 = !{i32 0}
