# sort.tcl -- SORT and SORT_RO: numeric and ALPHA order, ASC/DESC, LIMIT
# (negative and huge values), BY patterns (string keys, hash fields
# key->field, missing weights, BY without '*' = no sorting), GET patterns
# (# for the element, hash fields, missing keys as nil), STORE (creates a
# list, replaces the destination and its TTL, deletes it when the result is
# empty), sources of every sortable type and encoding, error replies, the
# order of ties (which follows Redis' qsort / partial quicksort), keyspace
# notifications. The last tests use cairn-only DEBUG subcommands (single
# lookup of the destination, propagation) and are skipped on other servers.

source [file join [file dirname [info script]] .. helpers harness.tcl]

set srv [start_server]
set c [client $srv]
r $c FLUSHALL

# Until commands.c registers SORT_COMMANDS (src/sort.h) there is nothing to
# test; the skip is counted and shown.
if {[r $c COMMAND INFO sort] eq "{}"} {
    skip "sort" "server has no SORT command yet (add SORT_COMMANDS to commands.c)"
    finish
}

proc rlist {key args} {
    r $::c DEL $key
    if {[llength $args]} { r $::c RPUSH $key {*}$args }
}
proc rset {key args} {
    r $::c DEL $key
    if {[llength $args]} { r $::c SADD $key {*}$args }
}
proc rzset {key args} {
    r $::c DEL $key
    if {[llength $args]} { r $::c ZADD $key {*}$args }
}
proc enc {key} { return [r $::c OBJECT ENCODING $key] }

# Sets configuration pairs for the duration of body, restoring them after.
proc with_config {pairs body} {
    set old {}
    foreach {k v} $pairs {
        lappend old $k [lindex [r $::c CONFIG GET $k] 1]
        r $::c CONFIG SET $k $v
    }
    set rc [catch {uplevel 1 $body} res opts]
    foreach {k v} $old { r $::c CONFIG SET $k $v }
    return -options $opts $res
}

set ERRCONV "ERR One or more scores can't be converted into double"

# Redis reads numbers with strtod without clearing errno first, so after a
# value that overflows (1e400) it keeps failing numeric sorts of non-integer
# strings until something clears errno. INCRBYFLOAT does; call this after
# any out-of-range number so the following tests see the normal behaviour.
proc clear_errno {} {
    r $::c SET __errno 1
    r $::c INCRBYFLOAT __errno 1
    r $::c DEL __errno
}

# ---------------------------------------------------------------------------
# Plain sorting
# ---------------------------------------------------------------------------

test "numeric sort of a list, ASC and DESC" {
    rlist l 3 10 -1 2.5 0 1e2
    assert_equal {-1 0 2.5 3 10 1e2} [r $c SORT l]
    assert_equal {-1 0 2.5 3 10 1e2} [r $c SORT l ASC]
    assert_equal {1e2 10 3 2.5 0 -1} [r $c SORT l DESC]
    assert_equal {1e2 10 3 2.5 0 -1} [r $c SORT l asc desc]
    assert_equal {-1 0 2.5 3 10 1e2} [r $c SORT l desc ASC]
    assert_equal "*3\r\n\$2\r\n-1\r\n\$1\r\n0\r\n\$3\r\n2.5\r\n" [rraw $c SORT l LIMIT 0 3]
    # The list is not changed.
    assert_equal {3 10 -1 2.5 0 1e2} [r $c LRANGE l 0 -1]
}

test "numbers are read like strtod: blanks, hex, inf, empty string" {
    rlist l " 7" 0x10 inf -inf "" 1.5e1 -0 +3
    assert_equal [list -inf "" -0 +3 " 7" 1.5e1 0x10 inf] [r $c SORT l]
    assert_equal [list inf 0x10 1.5e1 " 7" +3 -0 "" -inf] [r $c SORT l DESC]
}

test "equal numbers are ordered by their bytes (reversed by DESC)" {
    rlist l 1.0 01 1 1e0 0 b
    assert_error $ERRCONV {r $c SORT l}
    rlist l 1.0 01 1 1e0 1 0
    assert_equal {0 01 1 1 1.0 1e0} [r $c SORT l]
    assert_equal {1e0 1.0 1 1 01 0} [r $c SORT l DESC]
}

test "elements that are not numbers fail a numeric sort" {
    foreach bad {abc 3abc nan 1e400 1e-400 "1 " "-"} {
        rlist l 1 $bad 2
        assert_equal "-$ERRCONV\r\n" [rraw $c SORT l] "element '$bad'"
        assert_error $ERRCONV {r $c SORT_RO l DESC LIMIT 0 1}
    }
    clear_errno
}

test "ALPHA sorts bytes" {
    rlist l banana Apple apple 10 9 "" zz "a b" \xff
    assert_equal [list "" 10 9 Apple "a b" apple banana zz \xff] [r $c SORT l ALPHA]
    assert_equal [list \xff zz banana apple "a b" Apple 9 10 ""] [r $c SORT l ALPHA DESC]
    assert_equal [list Apple "a b"] [r $c SORT l ALPHA LIMIT 3 2]
}

test "ALPHA ties (bytes after a NUL) keep the list order" {
    rlist l "a\x00c" b "a\x00b" a
    assert_equal [list "a\x00c" "a\x00b" a b] [r $c SORT l ALPHA]
    assert_equal [list b "a\x00c" "a\x00b" a] [r $c SORT l ALPHA DESC]
    # STORE compares all the bytes.
    assert_equal 4 [r $c SORT l ALPHA STORE d]
    assert_equal [list a "a\x00b" "a\x00c" b] [r $c LRANGE d 0 -1]
}

test "a missing key sorts as an empty list" {
    r $c DEL nokey
    assert_equal "*0\r\n" [rraw $c SORT nokey]
    assert_equal "*0\r\n" [rraw $c SORT_RO nokey BY nosort DESC LIMIT 1 2 GET #]
    assert_equal "*0\r\n" [rraw $c SORT nokey ALPHA GET foo_*]
}

# ---------------------------------------------------------------------------
# LIMIT
# ---------------------------------------------------------------------------

test "LIMIT offset count, negative and huge values" {
    rlist l 5 4 3 2 1
    assert_equal {1 2 3 4 5} [r $c SORT l LIMIT 0 -1]
    assert_equal {2 3} [r $c SORT l LIMIT 1 2]
    assert_equal {4 3} [r $c SORT l LIMIT 1 2 DESC]
    assert_equal {1 2} [r $c SORT l LIMIT -5 2]
    assert_equal {3 4 5} [r $c SORT l LIMIT 2 -10]
    assert_equal {3 4 5} [r $c SORT l LIMIT 2 100]
    assert_equal {} [r $c SORT l LIMIT 1 0]
    assert_equal "*0\r\n" [rraw $c SORT l LIMIT 5 1]
    assert_equal "*0\r\n" [rraw $c SORT l LIMIT 9223372036854775807 9223372036854775807]
    assert_equal {1 2 3 4 5} [r $c SORT l LIMIT -9223372036854775808 9223372036854775807]
    assert_equal {5} [r $c SORT l LIMIT 4 1]
    # The last LIMIT wins.
    assert_equal {4} [r $c SORT l LIMIT 0 1 LIMIT 3 1]
}

test "LIMIT errors" {
    rlist l 1 2
    assert_error "ERR value is not an integer or out of range" {r $c SORT l LIMIT a 1}
    assert_error "ERR value is not an integer or out of range" {r $c SORT l LIMIT 0 1.5}
    assert_error "ERR value is not an integer or out of range" {r $c SORT l LIMIT 0 9223372036854775808}
    assert_error "ERR syntax error" {r $c SORT l LIMIT 0}
    assert_error "ERR syntax error" {r $c SORT l LIMIT}
    # Option errors come before the type check.
    r $c SET str x
    assert_error "ERR value is not an integer or out of range" {r $c SORT str LIMIT x 1}
}

# ---------------------------------------------------------------------------
# BY
# ---------------------------------------------------------------------------

test "BY string keys, missing weights count as 0" {
    r $c FLUSHALL
    rlist l a b c d e
    r $c MSET w_a 3 w_b 1.5 w_c -2 w_e 10
    assert_equal {c d b a e} [r $c SORT l BY w_*]
    assert_equal {e a b d c} [r $c SORT l BY w_* DESC]
    assert_equal {d b} [r $c SORT l BY w_* LIMIT 1 2]
    # Ties (missing weights) are ordered by the elements.
    r $c DEL w_a w_b
    assert_equal {c a b d e} [r $c SORT l BY w_*]
    assert_equal {e d b a c} [r $c SORT l BY w_* DESC]
    # A weight that is not a number fails the sort.
    r $c SET w_b x
    assert_error $ERRCONV {r $c SORT l BY w_*}
    # Other types read as missing.
    r $c DEL w_b
    r $c RPUSH w_b 100
    assert_equal {c a b d e} [r $c SORT l BY w_*]
}

test "BY with text around the star and integer-encoded weights" {
    r $c FLUSHALL
    rlist l 1 2 3
    r $c MSET pre_1_post 30 pre_2_post 10 pre_3_post 20
    assert_equal int [enc pre_1_post]
    assert_equal {2 3 1} [r $c SORT l BY pre_*_post]
    assert_equal {1 3 2} [r $c SORT_RO l BY pre_*_post DESC]
}

test "BY hash fields with key->field" {
    r $c FLUSHALL
    rlist l x y z
    r $c HSET h_x f 3 g b
    r $c HSET h_y f 1 g c
    r $c HSET h_z f 2 g a
    assert_equal {y z x} [r $c SORT l BY h_*->f]
    assert_equal {z x y} [r $c SORT l BY h_*->g ALPHA]
    # Missing field or key, or a key that is not a hash: weight 0.
    r $c HDEL h_y f
    r $c SET h_z f
    assert_equal {y z x} [r $c SORT l BY h_*->f]
    # A big hash (hashtable encoding) too.
    r $c DEL h_z
    r $c HSET h_z f -5 long [string repeat a 100]
    assert_equal hashtable [enc h_z]
    assert_equal {z y x} [r $c SORT l BY h_*->f]
    # "->" with nothing after it is part of the key name.
    r $c SET h_x-> 9
    r $c SET h_y-> 8
    r $c SET h_z-> 7
    assert_equal {z y x} [r $c SORT l BY h_*->]
}

test "ALPHA with BY: missing weights first, ties in list order" {
    r $c FLUSHALL
    rlist l a b c d e
    r $c MSET w_a x w_b y w_d x
    assert_equal {c e a d b} [r $c SORT l BY w_* ALPHA]
    assert_equal {b a d c e} [r $c SORT l BY w_* ALPHA DESC]
    # ALPHA weights need not be numbers, numeric ones are compared as text.
    r $c MSET w_a 10 w_b 9 w_c 100 w_d 1 w_e 2
    assert_equal {d a c e b} [r $c SORT l BY w_* ALPHA]
    assert_equal {d e b a c} [r $c SORT l BY w_*]
}

test "ALPHA with BY and LIMIT: ties come out in Redis' partial-sort order" {
    r $c FLUSHALL
    set els {}
    for {set i 0} {$i < 50} {incr i} { lappend els e$i }
    rlist l {*}$els
    for {set i 0} {$i < 50} {incr i 3} { r $c SET w_e$i [expr {$i % 2}] }
    set full [r $c SORT l BY w_* ALPHA]
    assert_equal 50 [llength $full]
    assert_equal {e1 e2 e4 e5 e7 e8 e10 e11} [lrange $full 0 7]
    # A window that is the whole vector is a full (stable) sort ...
    assert_equal $full [r $c SORT l BY w_* ALPHA LIMIT 0 50]
    assert_equal [lrange $full 32 end] {e49 e0 e6 e12 e18 e24 e30 e36 e42 e48 e3 e9 e15 e21 e27 e33 e39 e45}
    # ... a smaller one a partial quicksort: equal weights are not in list order.
    assert_equal {e1 e2 e23 e25 e26 e28 e29 e31 e32 e34} [r $c SORT l BY w_* ALPHA LIMIT 1 10]
    assert_equal {e4 e5 e7 e8 e10 e11 e13 e14 e16 e17} [r $c SORT l BY w_* ALPHA LIMIT 20 10]
    assert_equal {e45 e21 e15 e30 e42} [r $c SORT l BY w_* ALPHA DESC LIMIT 5 5]
    assert_equal {e42 e43 e44 e45 e46 e47 e48 e0} [r $c SORT l BY missing_* ALPHA LIMIT 42 8]
    assert_equal 10 [r $c SORT l BY w_* ALPHA LIMIT 20 10 STORE d]
    assert_equal {e4 e5 e7 e8 e10 e11 e13 e14 e16 e17} [r $c LRANGE d 0 -1]
}

test "BY without a star: lists keep their order, DESC reverses it" {
    rlist l 3 1 b 2 a
    assert_equal {3 1 b 2 a} [r $c SORT l BY nosort]
    assert_equal {a 2 b 1 3} [r $c SORT l BY nosort DESC]
    assert_equal {1 b} [r $c SORT l BY nosort LIMIT 1 2]
    assert_equal {2 b} [r $c SORT l BY nosort DESC LIMIT 1 2]
    assert_equal {b 2 a} [r $c SORT l BY nosort LIMIT 2 -1]
    assert_equal {} [r $c SORT l BY nosort LIMIT 5 1]
    assert_equal {} [r $c SORT l BY nosort DESC LIMIT 7 3]
    assert_equal {3 1 b 2 a} [r $c SORT l BY nosort ALPHA]
    # A key name with "->" but no star does not sort either.
    assert_equal {3 1 b 2 a} [r $c SORT l BY h->f]
    # A later BY with a star does not undo it.
    assert_equal {3 1 b 2 a} [r $c SORT l BY nosort BY w_*]
    assert_equal {3 1 b} [r $c SORT l BY w_* BY nosort LIMIT 0 3]
}

test "BY nosort over compressed list nodes" {
    with_config {list-max-listpack-size 4 list-compress-depth 1} {
        set els {}
        for {set i 0} {$i < 200} {incr i} { lappend els [expr {$i % 7 == 0 ? "str$i" : $i}] }
        rlist l {*}$els
        assert_equal $els [r $c SORT l BY nosort]
        assert_equal [lreverse $els] [r $c SORT l BY nosort DESC]
        assert_equal [lrange $els 97 113] [r $c SORT l BY nosort LIMIT 97 17]
        assert_equal [lrange [lreverse $els] 97 113] [r $c SORT l BY nosort DESC LIMIT 97 17]
        assert_equal 17 [r $c SORT l BY nosort LIMIT 97 17 STORE d]
        assert_equal [lrange $els 97 113] [r $c LRANGE d 0 -1]
        assert_equal 200 [r $c SORT l ALPHA STORE d]
        assert_equal [lsort $els] [r $c LRANGE d 0 -1]
    }
}

# ---------------------------------------------------------------------------
# Sets and sorted sets
# ---------------------------------------------------------------------------

test "sets: intset and hashtable" {
    rset s 10 -3 7 100 0
    assert_equal intset [enc s]
    assert_equal {-3 0 7 10 100} [r $c SORT s]
    assert_equal {100 10 7 0 -3} [r $c SORT s DESC]
    assert_equal {-3 0 10 100 7} [r $c SORT s ALPHA]
    assert_equal {0 7} [r $c SORT s LIMIT 1 2]
    # BY without a star: the set's own order (intset: ascending), DESC ignored.
    assert_equal {-3 0 7 10 100} [r $c SORT s BY nosort]
    assert_equal {-3 0 7 10 100} [r $c SORT s BY nosort DESC]
    assert_equal {7 10} [r $c SORT s BY nosort DESC LIMIT 2 2]
    rset s 2.5 x 1
    assert_equal hashtable [enc s]
    assert_error $ERRCONV {r $c SORT s}
    assert_equal {1 2.5 x} [r $c SORT s ALPHA]
    assert_equal {x 2.5 1} [r $c SORT_RO s ALPHA DESC]
    r $c SREM s x
    assert_equal {2.5 1} [r $c SORT s DESC]
}

test "sets without sorting are sorted ALPHA for STORE" {
    rset s 10 9 100 -1
    assert_equal 4 [r $c SORT s BY nosort STORE d]
    assert_equal {-1 10 100 9} [r $c LRANGE d 0 -1]
    assert_equal 4 [r $c SORT s BY nosort DESC STORE d]
    assert_equal {9 100 10 -1} [r $c LRANGE d 0 -1]
    r $c MSET w_9 1 w_10 2 w_100 3 w_-1 4
    assert_equal 2 [r $c SORT s BY nosort GET w_* LIMIT 1 2 STORE d]
    assert_equal {2 3} [r $c LRANGE d 0 -1]
    rset s c a b
    assert_equal 3 [r $c SORT s BY nosort STORE d]
    assert_equal {a b c} [r $c LRANGE d 0 -1]
}

test "sorted sets: members sorted, BY nosort keeps score order" {
    rzset z 3 a 1 c 2 b 0 d
    assert_equal listpack [enc z]
    assert_equal {a b c d} [r $c SORT z ALPHA]
    assert_equal {a b c d} [r $c SORT z BY nosort DESC]
    assert_equal {d c b a} [r $c SORT z BY nosort ALPHA]
    assert_equal {c b} [r $c SORT z BY nosort LIMIT 1 2]
    assert_equal {b c} [r $c SORT z BY nosort DESC LIMIT 1 2]
    assert_equal {a} [r $c SORT z BY nosort DESC LIMIT 0 1]
    assert_equal {a} [r $c SORT z BY nosort LIMIT 3 5]
    assert_equal {} [r $c SORT z BY nosort LIMIT 4 5]
    assert_error $ERRCONV {r $c SORT z}
    # Redis 7.0 converts the value to a skiplist to sort it, SORT_RO too.
    assert_equal skiplist [enc z]
    rzset z 1 10 2 9 3 8
    assert_equal listpack [enc z]
    assert_equal {8 9 10} [r $c SORT_RO z]
    assert_equal skiplist [enc z]
    assert_equal {10 9 8} [r $c SORT z BY nosort]
    assert_equal {10 1 9 2 8 3} [r $c ZRANGE z 0 -1 WITHSCORES]
    r $c MSET w_10 x w_9 z w_8 y
    assert_equal {10 8 9} [r $c SORT z BY w_* ALPHA]
    assert_equal {x z} [r $c SORT z BY nosort GET w_* LIMIT 0 2]
}

test "a skiplist-encoded sorted set with BY nosort and LIMIT" {
    set args {}
    set members {}
    for {set i 0} {$i < 300} {incr i} {
        lappend args [expr {($i * 37) % 300}] m$i
    }
    rzset z {*}$args
    assert_equal skiplist [enc z]
    set asc [r $c ZRANGE z 0 -1]
    assert_equal $asc [r $c SORT z BY nosort]
    assert_equal [lrange $asc 100 149] [r $c SORT z BY nosort LIMIT 100 50]
    assert_equal [lrange [lreverse $asc] 100 149] [r $c SORT z BY nosort DESC LIMIT 100 50]
    assert_equal [lsort $asc] [r $c SORT z ALPHA]
}

# ---------------------------------------------------------------------------
# GET
# ---------------------------------------------------------------------------

test "GET patterns: # is the element, missing keys are nil" {
    r $c FLUSHALL
    rlist l 2 1 3
    r $c MSET n_1 one n_2 two
    r $c HSET h_1 f uno
    r $c HSET h_3 f tres
    assert_equal "*3\r\n\$3\r\none\r\n\$3\r\ntwo\r\n\$-1\r\n" [rraw $c SORT l GET n_*]
    assert_equal {1 one uno 2 two {} 3 {} tres} [r $c SORT l GET # GET n_* GET h_*->f]
    assert_equal "*6\r\n\$1\r\n3\r\n\$4\r\ntres\r\n\$1\r\n2\r\n\$-1\r\n\$1\r\n1\r\n\$3\r\nuno\r\n" \
        [rraw $c SORT l DESC GET # GET h_*->f]
    assert_equal {two {}} [r $c SORT_RO l GET n_* LIMIT 1 5]
    # No star: nothing to look up; wrong types and missing fields: nil.
    r $c SET n_3 three
    assert_equal {{} {} {}} [r $c SORT l GET n_1]
    assert_equal {{} {} {}} [r $c SORT l GET n_*->f]
    assert_equal {{} {} {}} [r $c SORT l GET h_*->g]
    assert_equal {{} {} {}} [r $c SORT l GET ##]
    # "#" is tested as a C string: "#\0..." is the element too.
    assert_equal {1 2 3} [r $c SORT l GET "#\x00junk"]
}

test "GET in RESP3 returns nulls" {
    set c3 [client $srv -resp 3]
    r $c FLUSHALL
    rlist l 1 2
    r $c SET v_2 x
    assert_equal "*2\r\n_\r\n\$1\r\nx\r\n" [rraw $c3 SORT l GET v_*]
    close_client $c3
}

test "GET with integer-encoded and big hash values" {
    r $c FLUSHALL
    rlist l a b
    r $c SET v_a 12345
    r $c HSET h_a f 77
    r $c HSET h_b f -9 big [string repeat x 100]
    assert_equal {12345 77 {} -9} [r $c SORT l ALPHA GET v_* GET h_*->f]
}

test "patterns are C strings up to a NUL, but the bytes after the star stay" {
    r $c FLUSHALL
    rlist l 1 2
    r $c SET "v_1\x00x" a
    r $c SET "v_2\x00x" b
    assert_equal {a b} [r $c SORT l GET "v_*\x00x"]
    assert_equal {{} {}} [r $c SORT l GET "v_\x00*x"]
    # No star before the NUL: BY does not sort.
    rlist l 2 1
    assert_equal {2 1} [r $c SORT l BY "w\x00*"]
}

# ---------------------------------------------------------------------------
# STORE
# ---------------------------------------------------------------------------

test "STORE creates a list and returns its length" {
    r $c FLUSHALL
    rlist l 3 1 2
    assert_equal ":3\r\n" [rraw $c SORT l STORE d]
    assert_equal list [r $c TYPE d]
    assert_equal {1 2 3} [r $c LRANGE d 0 -1]
    assert_equal quicklist [enc d]
    assert_equal 2 [r $c SORT l DESC LIMIT 0 2 STORE d]
    assert_equal {3 2} [r $c LRANGE d 0 -1]
    # GET results are stored, missing values as empty strings.
    r $c SET n_1 one
    assert_equal 6 [r $c SORT l GET # GET n_* STORE d]
    assert_equal {1 one 2 {} 3 {}} [r $c LRANGE d 0 -1]
    # The source itself can be the destination.
    assert_equal 3 [r $c SORT l DESC STORE l]
    assert_equal {3 2 1} [r $c LRANGE l 0 -1]
}

test "STORE replaces a destination of any type and drops its TTL" {
    r $c FLUSHALL
    rlist l b a
    foreach setup {{SET d x} {SADD d m} {HSET d f v} {ZADD d 1 m} {RPUSH d old}} {
        r $c DEL d
        r $c {*}$setup
        r $c EXPIRE d 1000
        assert_equal 2 [r $c SORT l ALPHA STORE d]
        assert_equal {a b} [r $c LRANGE d 0 -1]
        assert_equal -1 [r $c TTL d]
    }
}

test "STORE with an empty result deletes the destination" {
    r $c FLUSHALL
    r $c SET d x
    assert_equal ":0\r\n" [rraw $c SORT nokey STORE d]
    assert_equal 0 [r $c EXISTS d]
    rlist l 1 2
    r $c RPUSH d x
    assert_equal 0 [r $c SORT l LIMIT 5 5 STORE d]
    assert_equal 0 [r $c EXISTS d]
    assert_equal 0 [r $c SORT l LIMIT 0 0 GET # STORE d]
    assert_equal 0 [r $c SORT nokey STORE d]
}

test "STORE is not done when the sort fails" {
    r $c FLUSHALL
    rlist l 1 x
    r $c SET d keep
    assert_error $ERRCONV {r $c SORT l STORE d}
    assert_equal keep [r $c GET d]
}

test "the last STORE wins; SORT_RO has no STORE" {
    r $c FLUSHALL
    rlist l 2 1
    assert_equal 2 [r $c SORT l STORE d1 STORE d2]
    assert_equal 0 [r $c EXISTS d1]
    assert_equal {1 2} [r $c LRANGE d2 0 -1]
    assert_error "ERR syntax error" {r $c SORT_RO l STORE d}
    assert_error "ERR syntax error" {r $c sort_ro l store d}
    assert_equal 0 [r $c EXISTS d]
}

test "SORT ... STORE inside MULTI" {
    r $c FLUSHALL
    rlist l 2 1
    r $c MULTI
    r $c SORT l STORE d
    r $c LRANGE d 0 -1
    assert_equal {2 {1 2}} [r $c EXEC]
}

# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------

test "WRONGTYPE, syntax and arity errors" {
    r $c FLUSHALL
    r $c SET str 1
    r $c HSET hash f v
    set wt "WRONGTYPE Operation against a key holding the wrong kind of value"
    assert_error $wt {r $c SORT str}
    assert_error $wt {r $c SORT_RO hash ALPHA}
    assert_error $wt {r $c SORT str STORE d}
    rlist l 1
    foreach args {{foo} {BY} {GET} {STORE} {LIMIT 1} {ALPHA DESC ASC x} {BY a b}} {
        assert_equal "-ERR syntax error\r\n" [rraw $c SORT l {*}$args] "SORT l $args"
    }
    # Syntax errors come before the type check.
    assert_error "ERR syntax error" {r $c SORT str foo}
    assert_error "ERR wrong number of arguments for 'sort' command" {r $c SORT}
    assert_error "ERR wrong number of arguments for 'sort_ro' command" {r $c SORT_RO}
    assert_equal {1} [r $c sort l alpha Asc]
}

# ---------------------------------------------------------------------------
# Keyspace notifications
# ---------------------------------------------------------------------------

test "notifications: sortstore on the destination, del when emptied" {
    set s [client $srv]
    set_timeout $s 5000
    r $c FLUSHALL
    r $c CONFIG SET notify-keyspace-events KEA
    r $s SUBSCRIBE __keyevent@0__:sortstore __keyevent@0__:del __keyevent@0__:marker
    # r returns only the first subscribe reply; read the other two
    read_reply $s
    read_reply $s
    rlist l 2 1
    r $c SORT l STORE d
    r $c SORT l                    ;# a read: nothing
    r $c SORT nokey STORE d
    r $c SORT nokey STORE d        ;# nothing to delete: nothing
    r $c PUBLISH __keyevent@0__:marker end
    assert_equal {message __keyevent@0__:sortstore d} [read_reply $s]
    assert_equal {message __keyevent@0__:del d} [read_reply $s]
    assert_equal {message __keyevent@0__:marker end} [read_reply $s]
    r $c CONFIG SET notify-keyspace-events ""
    close_client $s
}

test "RESP3: a command's own events come in Redis' order around the reply" {
    r $c FLUSHALL
    r $c CONFIG SET notify-keyspace-events KAm
    set p [client $srv -resp 3]
    send_cmd $p PSUBSCRIBE __keyspace@0__:*
    assert_equal {psubscribe __keyspace@0__:* 1} [read_push $p]
    rlist l 2 1
    r $c SET v_2 x
    r $c SET d old
    assert_equal PONG [r $p PING]
    assert_equal {sortstore reply} [events_and_reply $p SORT l STORE d]
    assert_equal {sortstore reply} [events_and_reply $p SORT l STORE d2]
    assert_equal {keymiss del reply} [events_and_reply $p SORT nokey STORE d]
    assert_equal {keymiss reply} [events_and_reply $p SORT nokey STORE d]
    assert_equal {keymiss reply} [events_and_reply $p SORT_RO nokey]
    assert_equal {keymiss keymiss reply} [events_and_reply $p SORT l BY w_*]
    assert_equal {keymiss sortstore reply} [events_and_reply $p SORT l GET v_* STORE d]
    # GET: each keymiss push comes just before that element's null.
    send_cmd $p SORT l GET v_*
    send_cmd $p PING
    set got ""
    while {[string range $got end-6 end] ne "+PONG\r\n"} { append got [read_raw_reply $p] }
    set push ">4\r\n\$8\r\npmessage\r\n\$16\r\n__keyspace@0__:*\r\n\$18\r\n__keyspace@0__:v_1\r\n\$7\r\nkeymiss\r\n"
    assert_equal "*2\r\n${push}_\r\n\$1\r\nx\r\n+PONG\r\n" $got
    close_client $p
    r $c CONFIG SET notify-keyspace-events ""
}

# ---------------------------------------------------------------------------
# cairn only: single lookup of the destination and propagation
# ---------------------------------------------------------------------------

if {[catch {r $c DEBUG LOOKUPS}]} {
    skip "sort internals" "server has no DEBUG LOOKUPS (not cairn)"
    finish
}

test "single lookup: the source once, each pattern key once, the destination once" {
    r $c FLUSHALL
    rlist l 3 1 2
    assert_equal 1 [lookups SORT l]
    assert_equal 2 [lookups SORT l STORE d]
    assert_equal 2 [lookups SORT l STORE d]
    assert_equal 2 [lookups SORT l LIMIT 5 1 STORE d]
    assert_equal 2 [lookups SORT nokey STORE d]
    assert_equal 4 [lookups SORT l BY w_*]
    assert_equal 8 [lookups SORT l BY w_* GET v_* STORE d]
    assert_equal 1 [lookups SORT l BY nosort GET #]
}

test "propagation: SORT ... STORE as it came, reads and no-ops not at all" {
    r $c FLUSHALL
    r $c SELECT 0
    rlist l 2 1
    propagated
    r $c SORT l
    r $c SORT_RO l
    r $c SORT l STORE d
    r $c SORT nokey STORE nod
    r $c SORT nokey STORE d
    assert_equal "[resp SORT l STORE d][resp SORT nokey STORE d]" [propagated]
}

finish
