; Found by translating DXIL this repository had not seen: a geometry shader input of two rows at
; column 1. Its variable is an array over the vertices of arrays over the rows, with Component 1: the
; Vulkan rule allows it, but spirv-val before 2024 strips only one array level and rejects the module.
; The translator refuses the element, naming it.
target datalayout = "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"

define void @main() {
  %1 = call float @dx.op.loadInput.f32(i32 4, i32 0, i32 1, i8 0, i32 0)
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 0, float %1)
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 1, float %1)
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 2, float %1)
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 3, float %1)
  call void @dx.op.emitStream(i32 97, i8 0)
  ret void
}

declare float @dx.op.loadInput.f32(i32, i32, i32, i8, i32) #0
declare void @dx.op.storeOutput.f32(i32, i32, i32, i8, float) #1
declare void @dx.op.emitStream(i32, i8) #1

attributes #0 = { nounwind readnone }
attributes #1 = { nounwind }

!dx.version = !{!0}
!dx.valver = !{!1}
!dx.shaderModel = !{!2}
!dx.entryPoints = !{!3}

!0 = !{i32 1, i32 0}
!1 = !{i32 1, i32 8}
!2 = !{!"gs", i32 6, i32 0}
!3 = !{void ()* @main, !"main", !4, null, !11}
!4 = !{!5, !8, null}
!5 = !{!6}
!6 = !{i32 0, !"TEXCOORD", i8 9, i8 0, !7, i8 2, i32 2, i8 2, i32 0, i8 1, null}
!7 = !{i32 0, i32 1}
!8 = !{!9}
!9 = !{i32 0, !"SV_Position", i8 9, i8 3, !10, i8 4, i32 1, i8 4, i32 0, i8 0, null}
!10 = !{i32 0}
!11 = !{i32 0, i64 0, i32 1, !12}
!12 = !{i32 1, i32 1, i32 1, i32 3, i32 1}
