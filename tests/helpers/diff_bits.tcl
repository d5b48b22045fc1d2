# diff_bits.tcl -- differential-test plugin for bitmaps and HyperLogLogs
# (sourced by tests/integration/differential.tcl, which provides rkey rval
# rint pick rnd one_in rcase).
#
# Random SETBIT GETBIT BITCOUNT BITPOS BITOP BITFIELD BITFIELD_RO on bitmap
# keys of our own (b0..b3, and the BITOP destinations) and on the shared
# keys (ordinary strings, integers, other types: WRONGTYPE), with ranges in
# bytes and bits, negative and out-of-range indexes, every BITFIELD type
# width and overflow mode, #N offsets; PFADD PFCOUNT PFMERGE PFDEBUG on
# HyperLogLog keys of our own (p0..p3), now and then a bulk PFADD of a few
# hundred to a few thousand elements (sparse opcodes growing, promotion to
# dense) and a CONFIG SET of hll-sparse-max-bytes, plus PF commands on the
# shared keys (invalid HyperLogLog values). Everything here is
# deterministic, so every reply is compared byte for byte; the base's
# dataset check GETs every key, which compares bitmaps and the HyperLogLog
# representation (cached cardinality included) exactly. Bit offsets stay
# below a few thousand so no command builds a huge string; the error paths
# for big offsets are exercised with invalid values only.

namespace eval ::diff_bits {
    variable bkeys [list b0 b1 b2 b3 "b:bin\x00\r\n"]
    variable pkeys [list p0 p1 p2 p3]
    variable elems [list a b c d e f 1 2 3 "" "x y" "bin\x00\xff" [string repeat q 50]]
}

proc ::diff_bits::bkey {} {
    variable bkeys
    if {[rnd 20] < 14} { return [pick $bkeys] }
    return [rkey]
}

proc ::diff_bits::pkey {} {
    variable pkeys
    set r [rnd 40]
    if {$r < 33} { return [pick $pkeys] }
    if {$r < 35} { return pbad }
    if {$r < 37} { return [pick $::diff_bits::bkeys] }
    return [rkey]
}

# Bit offsets: mostly small, sometimes invalid.
proc ::diff_bits::offset {} {
    switch [rnd 12] {
        0 { return [pick {-1 4294967296 9223372036854775807 abc "" 1.5 " 1" 0x10}] }
        1 { return [expr {[rnd 4000]}] }
        default { return [rnd 200] }
    }
}

# Range ends for BITCOUNT/BITPOS, in bytes or bits.
proc ::diff_bits::index {} {
    switch [rnd 12] {
        0 { return [pick {9223372036854775807 -9223372036854775808 abc "" 1.5}] }
        1 - 2 { return [expr {-1 - [rnd 40]}] }
        3 { return [expr {[rnd 2000] - 1000}] }
        default { return [rnd 40] }
    }
}

proc ::diff_bits::unit {} {
    if {[one_in 25]} { return [pick {BITS bytes "" FOO}] }
    return [rcase [pick {BIT BYTE}]]
}

proc ::diff_bits::fieldtype {} {
    if {[one_in 50]} { return [pick {u64 i65 u0 I8 U8 x8 u "" i-1}] }
    return "[pick {i u}][pick {1 2 3 4 5 7 8 9 12 15 16 17 24 31 32 33 48 62 63 64}]"
}

proc ::diff_bits::fieldoffset {} {
    switch [rnd 40] {
        0 - 1 - 2 - 3 - 4 - 5 { return "#[rnd 40]" }
        6 { return "#[pick {-1 2305843009213693953 1152921504606846976 abc {}}]" }
        7 { return [pick {-1 4294967296 abc}] }
        default { return [rnd 300] }
    }
}

proc ::diff_bits::fieldvalue {} {
    switch [rnd 16] {
        0 - 1 { return [pick {9223372036854775807 -9223372036854775808 4611686018427387904 -4611686018427387905}] }
        2 { return [pick {abc "" 1.5 9223372036854775808}] }
        3 - 4 { return [expr {[rnd 70000] - 35000}] }
        default { return [expr {[rnd 600] - 300}] }
    }
}

proc ::diff_bits::bitfield_ops {readonly} {
    set ops {}
    set n [expr {1 + [rnd 4]}]
    for {set i 0} {$i < $n} {incr i} {
        set op [pick {GET GET SET INCRBY INCRBY OVERFLOW}]
        if {$readonly && $op ne "OVERFLOW" && [rnd 8]} { set op GET }
        if {$op eq "OVERFLOW"} {
            lappend ops [rcase OVERFLOW]
            if {![one_in 40]} { lappend ops [rcase [pick {WRAP SAT FAIL WRAP SAT FAIL WRAP SAT FAIL FOO}]] }
            continue
        }
        lappend ops [rcase $op] [fieldtype]
        if {[one_in 80]} continue   ;# missing arguments: syntax error
        lappend ops [fieldoffset]
        if {$op ne "GET"} { lappend ops [fieldvalue] }
    }
    if {[one_in 60]} { lappend ops [pick {FOO GET SET}] }
    return $ops
}

proc ::diff_bits::elements {} {
    variable elems
    set out {}
    set n [rnd 6]
    for {set i 0} {$i < $n} {incr i} {
        if {[rnd 3]} { lappend out [pick $elems] } else { lappend out [rval] }
    }
    return $out
}

proc ::diff_bits::gen {idx} {
    set r [rnd 120]
    foreach {limit cmd} {
        12 setbit 18 getbit 28 bitcount 38 bitpos 46 bitop 60 bitfield 64 bitfield_ro
        68 bitset 84 pfadd 86 pfbulk 96 pfcount 104 pfmerge 109 pfdebug 111 pfconfig
        115 pfset 120 arity
    } {
        if {$r < $limit} break
    }
    switch -- $cmd {
        setbit {
            set bit [expr {[one_in 20] ? [pick {2 -1 abc ""}] : [rnd 2]}]
            return [list raw [list [rcase SETBIT] [bkey] [offset] $bit]]
        }
        getbit { return [list raw [list [rcase GETBIT] [bkey] [offset]]] }
        bitcount {
            set argv [list [rcase BITCOUNT] [bkey]]
            switch [rnd 6] {
                0 {}
                1 { lappend argv [index] }
                2 - 3 { lappend argv [index] [index] }
                default { lappend argv [index] [index] [unit] }
            }
            if {[one_in 30]} { lappend argv FOO }
            return [list raw $argv]
        }
        bitpos {
            set bit [expr {[one_in 20] ? [pick {2 -1 abc}] : [rnd 2]}]
            set argv [list [rcase BITPOS] [bkey] $bit]
            set n [rnd 5]
            if {$n >= 1} { lappend argv [index] }
            if {$n >= 2} { lappend argv [index] }
            if {$n >= 3} { lappend argv [unit] }
            if {$n >= 4 && [one_in 5]} { lappend argv x }
            return [list raw $argv]
        }
        bitop {
            set op [pick {AND OR XOR NOT AND OR XOR NOT}]
            if {[one_in 30]} { set op [pick {FOO ANDX ""}] }
            set argv [list [rcase BITOP] [rcase $op] [pick {b0 b1 b2 b3 bdest}]]
            set n [expr {$op eq "NOT" && [rnd 10] ? 1 : 1 + [rnd 3]}]
            for {set i 0} {$i < $n} {incr i} { lappend argv [bkey] }
            return [list raw $argv]
        }
        bitfield {
            return [list raw [concat [list [rcase BITFIELD] [bkey]] [bitfield_ops 0]]]
        }
        bitfield_ro {
            return [list raw [concat [list [rcase BITFIELD_RO] [bkey]] [bitfield_ops 1]]]
        }
        bitset {
            # A fresh bitmap value: runs of 0x00/0xff and random bytes, so
            # BITPOS and BITCOUNT see long uniform stretches and the word paths.
            set s ""
            set n [rnd 40]
            for {set i 0} {$i < $n} {incr i} {
                switch [rnd 4] {
                    0 { append s [string repeat "\xff" [rnd 20]] }
                    1 { append s [string repeat "\x00" [rnd 20]] }
                    default { append s [format %c [rnd 256]] }
                }
            }
            return [list raw [list SET [pick $::diff_bits::bkeys] $s]]
        }
        pfadd { return [list raw [concat [list [rcase PFADD] [pkey]] [elements]]] }
        pfbulk {
            # Hundreds to thousands of elements: long sparse values, and
            # (past hll-sparse-max-bytes) promotion to dense.
            set n [pick {50 200 400 800 1500 3000}]
            set base [rnd 5000]
            set argv [list PFADD [pick $::diff_bits::pkeys]]
            for {set i 0} {$i < $n} {incr i} { lappend argv "el:[expr {$base + $i}]" }
            return [list raw $argv]
        }
        pfcount {
            set n [expr {[rnd 3] ? 1 : 2 + [rnd 2]}]
            set argv [list [rcase PFCOUNT]]
            for {set i 0} {$i < $n} {incr i} { lappend argv [pkey] }
            return [list raw $argv]
        }
        pfmerge {
            set argv [list [rcase PFMERGE] [pkey]]
            set n [rnd 4]
            for {set i 0} {$i < $n} {incr i} { lappend argv [pkey] }
            return [list raw $argv]
        }
        pfdebug {
            set sub [pick {ENCODING ENCODING DECODE DECODE TODENSE GETREG FOO}]
            if {$sub eq "GETREG" && [rnd 4]} { set sub ENCODING }
            return [list raw [list PFDEBUG [rcase $sub] [pkey]]]
        }
        pfconfig {
            return [list raw [list CONFIG SET hll-sparse-max-bytes [pick {0 30 100 500 3000 3000 3000 20000}]]]
        }
        pfset {
            # Copies of HyperLogLogs under other names, and damaged ones
            # (kept to their own key so the others stay usable).
            set src [pick $::diff_bits::pkeys]
            if {[rnd 3]} { return [list raw [list COPY $src [pick $::diff_bits::pkeys] REPLACE]] }
            return [list raw [list SET pbad \
                    [pick [list "HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x7f\xfe" \
                         "HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x7f\xff\x80" \
                         "HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" \
                         "HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x39\x30\x00\x00\x00\x00\x00\x00\x7f\xff" \
                         "HYLL\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x7f\xff" \
                         "HYLL\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x7f\xff" HYLL]]]]
        }
        arity {
            set k [bkey]
            return [list raw [pick [list [list SETBIT $k 1] [list GETBIT $k] [list BITCOUNT] \
                    [list BITPOS $k] [list BITOP AND $k] [list BITFIELD] [list BITFIELD_RO] \
                    [list PFADD] [list PFCOUNT] [list PFMERGE] [list PFDEBUG ENCODING] \
                    [list SETBIT $k 1 1 1] [list GETBIT $k 1 1] [list PFSELFTEST x]]]]
        }
    }
    error "diff_bits: unhandled command $cmd"
}

# Dataset check: the base GETs every key already; the readers are compared
# on whatever each key holds (WRONGTYPE for other types).
proc ::diff_bits::dump {key} {
    return [list [list raw [list BITCOUNT $key]] [list raw [list BITPOS $key 0]]]
}

diff_plugin bits 120 ::diff_bits::gen
diff_dump ::diff_bits::dump
