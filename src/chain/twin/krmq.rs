//! krmq.h (minimap2 2.31): the AVL tree with range-minimum queries that `mg_lchain_rmq` keeps its anchors
//! in, ported operation for operation with `lc_elem_t`'s comparisons (lchain.c:226-228). Which element
//! [`Tree::rmq`] returns among equal priorities depends on the tree's shape and on each subtree's cached
//! minimum `s`, kept as krmq.h keeps it (ties go right child, then left child, then the node; insertion stops
//! updating `s` early; rotations hand the old subtree's `s` to the new top), so both are upstream's exactly.
//!
//! Nodes live in one array: node `j` is element (anchor) `j`, which `mg_lchain_rmq` inserts once; the last slot is
//! `krmq_erase`'s `fake` parent of the root; links are indices, [`NIL`] for none.

use crate::memory::{try_vec, OutOfMemory};

pub const NIL: u32 = u32::MAX;
/// `KRMQ_MAX_DEPTH`: more than any AVL tree of 2^32 nodes needs.
const MAX_DEPTH: usize = 64;

/// A key of `lc_elem_cmp`: `y`, then the anchor index `i`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key {
    pub y: i32,
    pub i: i64,
}

#[derive(Debug, Clone, Copy)]
struct Node {
    /// `lc_elem_t::pri`, the value minimised (`lc_elem_lt2`)
    pri: f64,
    y: i32,
    p: [u32; 2],
    /// the node of least `pri` in the subtree, as krmq.h caches it
    s: u32,
    size: u32,
    balance: i8,
    in_tree: bool,
}

const EMPTY: Node = Node { pri: 0.0, y: 0, p: [NIL, NIL], s: NIL, size: 0, balance: 0, in_tree: false };

/// The links of one node as krmq.h keeps them: children, cached minimum, balance factor, subtree size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Links {
    pub left: u32,
    pub right: u32,
    pub s: u32,
    pub balance: i8,
    pub size: u32,
}

/// One krmq tree over the elements `0..n` (node j holds element `i = j`).
pub struct Tree {
    nodes: Vec<Node>,
    root: u32,
}

impl Tree {
    /// An empty tree for elements `0..n` (`n < u32::MAX`).
    pub fn new(n: usize) -> Result<Tree, OutOfMemory> {
        assert!(n < NIL as usize);
        Ok(Tree { nodes: try_vec(EMPTY, n + 1)?, root: NIL })
    }

    pub fn root(&self) -> u32 {
        self.root
    }

    /// `krmq_size(head, root)`.
    pub fn size(&self) -> u32 {
        if self.root == NIL {
            0
        } else {
            self.nodes[self.root as usize].size
        }
    }

    /// Whether element `j` is in the tree (what `krmq_find` with its key tells, keys being unique).
    #[inline]
    pub fn contains(&self, j: u32) -> bool {
        self.nodes[j as usize].in_tree
    }

    pub fn y(&self, j: u32) -> i32 {
        self.nodes[j as usize].y
    }

    pub fn links(&self, j: u32) -> Links {
        let q = &self.nodes[j as usize];
        Links { left: q.p[0], right: q.p[1], s: q.s, balance: q.balance, size: q.size }
    }

    /// Node `j`, unchecked: the tree's links (`root`, `p`, `s`, the iterators' paths) hold node indices or
    /// [`NIL`], which is never followed; the elements callers pass are checked where they come in.
    #[inline(always)]
    fn nd(&self, j: u32) -> &Node {
        debug_assert!((j as usize) < self.nodes.len());
        // SAFETY: j is a node index (above).
        unsafe { self.nodes.get_unchecked(j as usize) }
    }

    #[inline(always)]
    fn nd_mut(&mut self, j: u32) -> &mut Node {
        debug_assert!((j as usize) < self.nodes.len());
        // SAFETY: j is a node index (see nd).
        unsafe { self.nodes.get_unchecked_mut(j as usize) }
    }

    #[inline(always)]
    fn cmp(&self, x: Key, j: u32) -> i32 {
        let y = self.nd(j).y;
        if x.y < y {
            -1
        } else if x.y > y {
            1
        } else {
            (x.i > j as i64) as i32 - (x.i < j as i64) as i32
        }
    }

    #[inline(always)]
    fn key(&self, j: u32) -> Key {
        Key { y: self.nd(j).y, i: j as i64 }
    }

    #[inline(always)]
    fn lt2(&self, a: u32, b: u32) -> bool {
        self.nd(a).pri < self.nd(b).pri
    }

    #[inline(always)]
    fn size_child(&self, q: u32, i: usize) -> u32 {
        let c = self.nd(q).p[i];
        if c == NIL {
            0
        } else {
            self.nd(c).size
        }
    }

    #[inline(always)]
    fn update_min(&mut self, p: u32, q: u32, r: u32) {
        let mut s = if q == NIL || self.lt2(p, self.nd(q).s) { p } else { self.nd(q).s };
        s = if r == NIL || self.lt2(s, self.nd(r).s) { s } else { self.nd(r).s };
        self.nd_mut(p).s = s;
    }

    /// `krmq_rotate1`: (a,(b,c)q)p => ((a,b)p,c)q; dir 0 to the left.
    fn rotate1(&mut self, p: u32, dir: usize) -> u32 {
        let opp = 1 - dir;
        let q = self.nd(p).p[opp];
        let s = self.nd(p).s;
        let size_p = self.nd(p).size;
        let d = self.nd(q).size.wrapping_sub(self.size_child(q, dir));
        self.nd_mut(p).size = size_p.wrapping_sub(d);
        self.nd_mut(q).size = size_p;
        self.update_min(p, self.nd(p).p[dir], self.nd(q).p[dir]);
        self.nd_mut(q).s = s;
        self.nd_mut(p).p[opp] = self.nd(q).p[dir];
        self.nd_mut(q).p[dir] = p;
        q
    }

    /// `krmq_rotate2`: (a,((b,c)r,d)q)p => ((a,b)p,(c,d)q)r.
    fn rotate2(&mut self, p: u32, dir: usize) -> u32 {
        let opp = 1 - dir;
        let q = self.nd(p).p[opp];
        let r = self.nd(q).p[dir];
        let s = self.nd(p).s;
        let size_x_dir = self.size_child(r, dir);
        self.nd_mut(r).size = self.nd(p).size;
        let d = self.nd(q).size.wrapping_sub(size_x_dir);
        self.nd_mut(p).size = self.nd(p).size.wrapping_sub(d);
        self.nd_mut(q).size = self.nd(q).size.wrapping_sub(size_x_dir.wrapping_add(1));
        self.update_min(p, self.nd(p).p[dir], self.nd(r).p[dir]);
        self.update_min(q, self.nd(q).p[opp], self.nd(r).p[opp]);
        self.nd_mut(r).s = s;
        self.nd_mut(p).p[opp] = self.nd(r).p[dir];
        self.nd_mut(r).p[dir] = p;
        self.nd_mut(q).p[dir] = self.nd(r).p[opp];
        self.nd_mut(r).p[opp] = q;
        let b1: i8 = if dir == 0 { 1 } else { -1 };
        let rb = self.nd(r).balance;
        if rb == b1 {
            self.nd_mut(q).balance = 0;
            self.nd_mut(p).balance = -b1;
        } else if rb == 0 {
            self.nd_mut(q).balance = 0;
            self.nd_mut(p).balance = 0;
        } else {
            self.nd_mut(q).balance = b1;
            self.nd_mut(p).balance = 0;
        }
        self.nd_mut(r).balance = 0;
        r
    }

    /// `krmq_insert` of element `x` (not in the tree: keys are unique, so upstream's "already present" return
    /// never happens) with key `(y, x)` and priority `pri`.
    pub fn insert(&mut self, x: u32, y: i32, pri: f64) {
        assert!((x as usize) < self.nodes.len() - 1 && !self.nodes[x as usize].in_tree, "krmq insert: bad element {x}");
        {
            let n = self.nd_mut(x);
            n.y = y;
            n.pri = pri;
        }
        let xk = self.key(x);
        let mut stack = [0u8; MAX_DEPTH];
        let mut path = [0u32; MAX_DEPTH];
        let (mut bp, mut bq) = (self.root, NIL);
        let (mut p, mut q) = (bp, bq);
        let (mut top, mut path_len, mut which) = (0usize, 0usize, 0usize);
        while p != NIL {
            let cmp = self.cmp(xk, p);
            if self.nd(p).balance != 0 {
                bq = q;
                bp = p;
                top = 0;
            }
            which = (cmp > 0) as usize;
            stack[top] = which as u8;
            top += 1;
            path[path_len] = p;
            path_len += 1;
            q = p;
            p = self.nd(p).p[which];
        }
        {
            let n = self.nd_mut(x);
            n.balance = 0;
            n.size = 1;
            n.p = [NIL, NIL];
            n.s = x;
            n.in_tree = true;
        }
        if q == NIL {
            self.root = x;
        } else {
            self.nd_mut(q).p[which] = x;
        }
        if bp == NIL {
            return;
        }
        for &e in &path[..path_len] {
            self.nd_mut(e).size += 1;
        }
        for &e in path[..path_len].iter().rev() {
            let (l, r) = (self.nd(e).p[0], self.nd(e).p[1]);
            self.update_min(e, l, r);
            if self.nd(e).s != x {
                break;
            }
        }
        p = bp;
        top = 0;
        while p != x {
            let d = stack[top] as usize;
            if d == 0 {
                self.nd_mut(p).balance -= 1;
            } else {
                self.nd_mut(p).balance += 1;
            }
            p = self.nd(p).p[d];
            top += 1;
        }
        let bb = self.nd(bp).balance;
        if bb > -2 && bb < 2 {
            return;
        }
        let which = (bb < 0) as usize;
        let b1: i8 = if which == 0 { 1 } else { -1 };
        let q = self.nd(bp).p[1 - which];
        let r = if self.nd(q).balance == b1 {
            let r = self.rotate1(bp, which);
            self.nd_mut(q).balance = 0;
            self.nd_mut(bp).balance = 0;
            r
        } else {
            self.rotate2(bp, which)
        };
        if bq == NIL {
            self.root = r;
        } else {
            let side = (bp != self.nd(bq).p[0]) as usize;
            self.nd_mut(bq).p[side] = r;
        }
    }

    /// `krmq_erase` of element `x`, which is in the tree (as `krmq_find` then `krmq_erase` in lchain.c).
    pub fn erase(&mut self, x: u32) {
        assert!((x as usize) < self.nodes.len() - 1 && self.nodes[x as usize].in_tree, "krmq erase: element {x} not in the tree");
        let fake = (self.nodes.len() - 1) as u32;
        // `fake = **root_`: a copy of the root whose left child is the root
        *self.nd_mut(fake) = Node { p: [self.root, NIL], ..*self.nd(self.root) };
        let xk = self.key(x);
        let mut path = [0u32; MAX_DEPTH];
        let mut dir = [0u8; MAX_DEPTH];
        let mut d = 0usize;
        let mut cmp = -1;
        let mut p = fake;
        while cmp != 0 {
            let which = (cmp > 0) as usize;
            dir[d] = which as u8;
            path[d] = p;
            d += 1;
            p = self.nd(p).p[which];
            assert!(p != NIL, "krmq erase: element {x} not in the tree");
            cmp = self.cmp(xk, p);
        }
        for &e in &path[1..d] {
            self.nd_mut(e).size -= 1;
        }
        let pn = *self.nd(p);
        if pn.p[1] == NIL {
            self.nd_mut(path[d - 1]).p[dir[d - 1] as usize] = pn.p[0];
        } else {
            let mut q = pn.p[1];
            if self.nd(q).p[0] == NIL {
                let qn = self.nd_mut(q);
                qn.p[0] = pn.p[0];
                qn.balance = pn.balance;
                qn.size = pn.size - 1;
                self.nd_mut(path[d - 1]).p[dir[d - 1] as usize] = q;
                path[d] = q;
                dir[d] = 1;
                d += 1;
            } else {
                let e = d;
                d += 1;
                let r = loop {
                    dir[d] = 0;
                    path[d] = q;
                    d += 1;
                    let r = self.nd(q).p[0];
                    if self.nd(r).p[0] == NIL {
                        break r;
                    }
                    q = r;
                };
                self.nd_mut(r).p[0] = pn.p[0];
                self.nd_mut(q).p[0] = self.nd(r).p[1];
                self.nd_mut(r).p[1] = pn.p[1];
                self.nd_mut(r).balance = pn.balance;
                self.nd_mut(path[e - 1]).p[dir[e - 1] as usize] = r;
                path[e] = r;
                dir[e] = 1;
                for &t in &path[e + 1..d] {
                    self.nd_mut(t).size -= 1;
                }
                self.nd_mut(r).size = pn.size - 1;
            }
        }
        for &e in path[..d].iter().rev() {
            let (l, r) = (self.nd(e).p[0], self.nd(e).p[1]);
            self.update_min(e, l, r);
        }
        while d > 1 {
            d -= 1;
            let q = path[d];
            let which = dir[d] as usize;
            let other = 1 - which;
            let (b1, b2): (i8, i8) = if which != 0 { (-1, -2) } else { (1, 2) };
            self.nd_mut(q).balance += b1;
            let qb = self.nd(q).balance;
            if qb == b1 {
                break;
            } else if qb == b2 {
                let r = self.nd(q).p[other];
                let up = (path[d - 1], dir[d - 1] as usize);
                if self.nd(r).balance == -b1 {
                    let r2 = self.rotate2(q, which);
                    self.nd_mut(up.0).p[up.1] = r2;
                } else {
                    let r1 = self.rotate1(q, which);
                    self.nd_mut(up.0).p[up.1] = r1;
                    if self.nd(r).balance == 0 {
                        self.nd_mut(r).balance = -b1;
                        self.nd_mut(q).balance = b1;
                        break;
                    } else {
                        self.nd_mut(r).balance = 0;
                        self.nd_mut(q).balance = 0;
                    }
                }
            }
        }
        self.root = self.nd(fake).p[0];
        self.nd_mut(p).in_tree = false;
    }

    /// `krmq_rmq`: the element of least priority with a key in the closed interval `[lo, up]`, found as
    /// krmq.h finds it (the first of equal priorities along its walks); None when the interval is empty.
    ///
    /// krmq.h records the two walks of `lo` and `up` from the root, then scans them. They share their nodes
    /// down to the first one within `[lo, up]` (the walks' lowest common node; where they part or one stops
    /// before such a node, the interval is empty); below it, only the nodes of `lo`'s walk, then of `up`'s,
    /// are compared. Walking them in that order compares the same nodes in the same order.
    pub fn rmq(&self, lo: Key, up: Key) -> Option<u32> {
        let mut p = self.root;
        let (c0, c1) = loop {
            if p == NIL {
                return None;
            }
            let (c0, c1) = (self.cmp(lo, p), self.cmp(up, p));
            if c0 <= 0 && c1 >= 0 {
                break (c0, c1);
            }
            if c0 < 0 && c1 < 0 {
                p = self.nd(p).p[0];
            } else if c0 > 0 && c1 > 0 {
                p = self.nd(p).p[1];
            } else {
                return None;
            }
        };
        let mut min = p;
        // lo's walk below the common node: nodes at or above lo, with their right subtrees
        if c0 < 0 {
            let mut q = self.nd(p).p[0];
            while q != NIL {
                let c = self.cmp(lo, q);
                if c <= 0 {
                    if self.lt2(q, min) {
                        min = q;
                    }
                    let r = self.nd(q).p[1];
                    if r != NIL && self.lt2(self.nd(r).s, min) {
                        min = self.nd(r).s;
                    }
                }
                q = match c {
                    ..0 => self.nd(q).p[0],
                    1.. => self.nd(q).p[1],
                    0 => break,
                };
            }
        }
        // then up's walk: nodes at or below up, with their left subtrees
        if c1 > 0 {
            let mut q = self.nd(p).p[1];
            while q != NIL {
                let c = self.cmp(up, q);
                if c >= 0 {
                    if self.lt2(q, min) {
                        min = q;
                    }
                    let l = self.nd(q).p[0];
                    if l != NIL && self.lt2(self.nd(l).s, min) {
                        min = self.nd(l).s;
                    }
                }
                q = match c {
                    ..0 => self.nd(q).p[0],
                    1.. => self.nd(q).p[1],
                    0 => break,
                };
            }
        }
        Some(min)
    }

    /// `krmq_interval`'s lower bound of `x` (the greatest element whose key is at most `x`), then
    /// `krmq_itr_find` of it: an iterator at that element, exhausted when there is none. The walk to `x`
    /// passes through its lower bound, so the iterator's path is that walk's, cut there.
    pub fn itr_lower(&self, x: Key) -> Itr {
        let mut itr = Itr { stack: [0; MAX_DEPTH], len: 0 };
        let (mut p, mut len) = (self.root, 0usize);
        let mut depth = 0usize;
        while p != NIL {
            itr.stack[depth] = p;
            depth += 1;
            let cmp = self.cmp(x, p);
            if cmp < 0 {
                p = self.nd(p).p[0];
            } else {
                len = depth;
                if cmp == 0 {
                    break;
                }
                p = self.nd(p).p[1];
            }
        }
        itr.len = len;
        itr
    }

    /// `krmq_itr_prev` (`krmq_itr_next_bidir(itr, 0)`): moves to the previous element in key order; false
    /// at the start (the iterator is then exhausted).
    pub fn itr_prev(&self, itr: &mut Itr) -> bool {
        if itr.len == 0 {
            return false;
        }
        let mut p = self.nd(itr.stack[itr.len - 1]).p[0];
        if p != NIL {
            while p != NIL {
                itr.stack[itr.len] = p;
                itr.len += 1;
                p = self.nd(p).p[1];
            }
            true
        } else {
            loop {
                itr.len -= 1;
                p = itr.stack[itr.len];
                if itr.len == 0 || p != self.nd(itr.stack[itr.len - 1]).p[0] {
                    break;
                }
            }
            itr.len > 0
        }
    }
}

/// `krmq_itr_t`: the path from the root to the current element.
pub struct Itr {
    stack: [u32; MAX_DEPTH],
    len: usize,
}

impl Itr {
    /// `krmq_at`: the current element, None when exhausted.
    #[inline]
    pub fn at(&self) -> Option<u32> {
        if self.len == 0 {
            None
        } else {
            Some(self.stack[self.len - 1])
        }
    }
}
