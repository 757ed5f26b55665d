use super::super::verify::verify;
use super::*;

fn cfg(terms: &[Terminator]) -> Cfg {
    let mut c = Cfg::new();
    for &t in terms {
        c.push(t);
    }
    c
}

fn b(i: u32) -> BlockId {
    BlockId(i)
}

#[test]
fn diamond_is_one_selection() {
    let c = cfg(&[
        Terminator::CondBranch { t: b(1), f: b(2) },
        Terminator::Branch(b(3)),
        Terminator::Branch(b(3)),
        Terminator::Return,
    ]);
    let mut st = Structurizer::new();
    let s = st.run(&c).unwrap();
    verify(&s, &c).unwrap();
    let blocks = s.blocks();
    assert_eq!(blocks.len(), 4);
    assert_eq!(
        blocks[0].merge,
        Merge::Selection {
            merge: OutBlockId(3)
        }
    );
    assert_eq!(
        blocks[0].term,
        OutTerminator::CondBranch {
            cond: Condition::Original(b(0)),
            t: OutBlockId(1),
            f: OutBlockId(2)
        }
    );
    assert!(!s.uses_flag());
    let phis = s.phi_preds(b(3)).unwrap();
    assert_eq!(phis.len(), 2);
    assert!(phis.contains(&PhiPred {
        parent: OutBlockId(1),
        pred: b(1)
    }));
    assert_eq!(
        s.edge_first_hop(b(0), 1),
        Some((OutBlockId(0), OutBlockId(2)))
    );
    assert!(s.def_dominates_use(b(0), b(3)) && !s.def_dominates_use(b(1), b(3)));
}

#[test]
fn break_out_of_the_outer_loop_from_the_inner_exit() {
    // 0 → 1 (outer) → 2 (inner): 2 → {2, 3}; 3 → {5 (break both), 4}; 4 → {1, 5}; 5 return.
    let c = cfg(&[
        Terminator::Branch(b(1)),
        Terminator::Branch(b(2)),
        Terminator::CondBranch { t: b(2), f: b(3) },
        Terminator::CondBranch { t: b(6), f: b(4) },
        Terminator::CondBranch { t: b(1), f: b(5) },
        Terminator::Return,
        Terminator::Branch(b(5)),
    ]);
    let mut st = Structurizer::new();
    let s = st.run(&c).unwrap();
    verify(&s, &c).unwrap();
    let loops = s
        .blocks()
        .iter()
        .filter(|x| matches!(x.merge, Merge::Loop { .. }))
        .count();
    assert_eq!(loops, 2);
    // The inner loop's header keeps its instructions and OpLoopMerge; its phis can stay phis.
    let h = s.image(b(2)).unwrap();
    assert!(matches!(s.block(h).unwrap().merge, Merge::Loop { .. }));
    assert!(s.phi_preds(b(2)).is_some());
    // 3 is the inner loop's only exit, hence its merge; 6 (one predecessor, one destination) stays inline in
    // the outer loop and breaks straight to the outer merge 5: no flag.
    assert!(!s.uses_flag());
    let outer = s.block(s.image(b(1)).unwrap()).unwrap();
    let Merge::Loop { merge, .. } = outer.merge else {
        panic!("outer loop header without OpLoopMerge")
    };
    assert_eq!(Some(merge), s.image(b(5)));
    let inner = s.block(s.image(b(2)).unwrap()).unwrap();
    assert!(matches!(inner.merge, Merge::Loop { merge, .. } if Some(merge) == s.image(b(3))));
    assert_eq!(
        s.block(s.image(b(6)).unwrap()).unwrap().term,
        OutTerminator::Branch(merge)
    );
}

#[test]
fn unreachable_blocks_are_dropped_and_context_is_reused() {
    let mut st = Structurizer::new();
    let c = cfg(&[Terminator::Return, Terminator::Branch(b(0))]);
    let s = st.run(&c).unwrap();
    assert_eq!(s.blocks().len(), 1);
    assert_eq!(s.image(b(1)), None);
    assert_eq!(s.edge_first_hop(b(1), 0), None);
    let c2 = cfg(&[
        Terminator::CondBranch { t: b(1), f: b(1) },
        Terminator::Unreachable,
    ]);
    let s = st.run(&c2).unwrap();
    verify(&s, &c2).unwrap();
    assert_eq!(s.blocks()[0].term, OutTerminator::Branch(OutBlockId(1)));
    assert_eq!(s.edge_first_hop(b(0), 0), s.edge_first_hop(b(0), 1));
}

#[test]
fn bad_input_is_an_error() {
    let mut st = Structurizer::new();
    assert_eq!(st.run(&Cfg::new()).err(), Some(StructurizeError::Empty));
    let c = cfg(&[Terminator::Branch(b(7))]);
    assert!(matches!(
        st.run(&c),
        Err(StructurizeError::InvalidTarget { target: 7, .. })
    ));
    let c = cfg(&[
        Terminator::CondBranch { t: b(1), f: b(2) },
        Terminator::Branch(b(2)),
        Terminator::Branch(b(1)),
    ]);
    let err = st.run(&c).err().unwrap();
    assert!(matches!(err, StructurizeError::Irreducible { .. }), "{err}");
    assert!(err.to_string().contains("irreducible"));
    let mut c = Cfg::new();
    c.push_switch(b(1), [(3, b(1)), (3, b(2))]);
    c.push(Terminator::Return);
    c.push(Terminator::Return);
    assert_eq!(
        st.run(&c).err(),
        Some(StructurizeError::DuplicateCase {
            block: b(0),
            literal: 3
        })
    );
}
