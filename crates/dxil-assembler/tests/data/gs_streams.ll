; Geometry shader writing to streams 0 and 1.
target datalayout = "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"

define void @main() {
  %1 = call float @dx.op.loadInput.f32(i32 4, i32 0, i32 0, i8 0, i32 0)  ; LoadInput(inputSigId,rowIndex,colIndex,gsVertexAxis)
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 0, float %1)  ; StoreOutput(outputSigId,rowIndex,colIndex,value)
  call void @dx.op.emitStream(i32 97, i8 0)  ; EmitStream(streamId)
  call void @dx.op.storeOutput.f32(i32 5, i32 1, i32 0, i8 0, float %1)  ; StoreOutput(outputSigId,rowIndex,colIndex,value)
  call void @dx.op.emitStream(i32 97, i8 1)  ; EmitStream(streamId)
  ret void
}

; Function Attrs: nounwind readnone
declare float @dx.op.loadInput.f32(i32, i32, i32, i8, i32) #0

; Function Attrs: nounwind
declare void @dx.op.storeOutput.f32(i32, i32, i32, i8, float) #1

; Function Attrs: nounwind
declare void @dx.op.emitStream(i32, i8) #1

attributes #0 = { nounwind readnone }
attributes #1 = { nounwind }

!llvm.ident = !{!0}
!dx.version = !{!1}
!dx.valver = !{!2}
!dx.shaderModel = !{!3}
!dx.entryPoints = !{!4}

!0 = !{!"hand-written test listing"}
!1 = !{i32 1, i32 0}
!2 = !{i32 1, i32 8}
!3 = !{!"gs", i32 6, i32 0}
!4 = !{void ()* @main, !"main", !5, null, !14}
!5 = !{!6, !10, null}
!6 = !{!7}
!7 = !{i32 0, !"POSITION", i8 9, i8 0, !8, i8 0, i32 1, i8 1, i32 0, i8 0, !9}
!8 = !{i32 0}
!9 = !{i32 3, i32 1}
!10 = !{!11, !12}
!11 = !{i32 0, !"SV_Position", i8 9, i8 3, !8, i8 2, i32 1, i8 4, i32 0, i8 0, !9}
!12 = !{i32 1, !"TEXCOORD", i8 9, i8 0, !8, i8 2, i32 1, i8 2, i32 0, i8 0, !13}
!13 = !{i32 0, i32 1, i32 3, i32 1}
!14 = !{i32 1, !15}
!15 = !{i32 1, i32 4, i32 3, i32 5, i32 1}
