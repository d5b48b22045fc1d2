# type_set.tcl -- the set commands: SADD SREM SCARD SISMEMBER SMISMEMBER
# SMEMBERS SPOP SRANDMEMBER SMOVE SINTER SINTERCARD SINTERSTORE SUNION
# SUNIONSTORE SDIFF SDIFFSTORE SSCAN; the intset and hashtable encodings and
# the conversions between them (Redis 7.0 has no listpack sets); WRONGTYPE,
# arity and argument errors. Random commands are checked by property.
# The last tests use cairn-only DEBUG subcommands (single lookup,
# propagation) and are skipped on other servers.

source [file join [file dirname [info script]] .. helpers harness.tcl]

set srv [start_server]
set c [client $srv]
r $c FLUSHALL

proc enc {key} { return [r $::c OBJECT ENCODING $key] }
proc smembers_sorted {key} { return [lsort [r $::c SMEMBERS $key]] }

# Integers from..to as a list.
proc range {from to} {
    set l {}
    for {set i $from} {$i <= $to} {incr i} { lappend l $i }
    return $l
}

# Fills key with members (after deleting it).
proc mkset {key args} {
    r $::c DEL $key
    if {[llength $args]} { r $::c SADD $key {*}$args }
}

# Every element of list is in the set key.
proc assert_all_members {key list} {
    foreach e $list {
        assert_equal 1 [r $::c SISMEMBER $key $e] "$e member of $key"
    }
}

proc assert_distinct {list} {
    assert_equal [llength $list] [llength [lsort -unique $list]] "distinct: $list"
}

# ---------------------------------------------------------------------------
# SADD SCARD SISMEMBER SMISMEMBER SREM
# ---------------------------------------------------------------------------

test "SADD counts new members only, SCARD and SISMEMBER" {
    r $c DEL s
    assert_equal ":3\r\n" [rraw $c SADD s a b c]
    assert_equal 1 [r $c SADD s a d a d]
    assert_equal 4 [r $c SCARD s]
    assert_equal 0 [r $c SADD s a b]
    assert_equal ":1\r\n" [rraw $c SISMEMBER s a]
    assert_equal ":0\r\n" [rraw $c SISMEMBER s zz]
    assert_equal set [r $c TYPE s]
    assert_equal {a b c d} [smembers_sorted s]
}

test "SCARD, SISMEMBER and SMISMEMBER of a missing key" {
    r $c DEL nokey
    assert_equal ":0\r\n" [rraw $c SCARD nokey]
    assert_equal ":0\r\n" [rraw $c SISMEMBER nokey a]
    assert_equal "*2\r\n:0\r\n:0\r\n" [rraw $c SMISMEMBER nokey a b]
    assert_equal 0 [r $c EXISTS nokey]
}

test "SMISMEMBER on both encodings" {
    mkset si 1 2 3
    mkset sh a 1 b
    assert_equal "*4\r\n:1\r\n:0\r\n:1\r\n:0\r\n" [rraw $c SMISMEMBER si 1 a 3 4]
    assert_equal {1 1 0 1 0} [r $c SMISMEMBER sh a 1 2 b 01]
}

test "binary and empty members" {
    mkset bin "" "a\x00b" "\r\n" "\xff\xfe"
    assert_equal 4 [r $c SCARD bin]
    assert_equal 1 [r $c SISMEMBER bin ""]
    assert_equal 1 [r $c SISMEMBER bin "a\x00b"]
    assert_equal 0 [r $c SISMEMBER bin "a"]
    assert_equal [lsort [list "" "a\x00b" "\r\n" "\xff\xfe"]] [smembers_sorted bin]
    assert_equal hashtable [enc bin]
}

test "SREM counts removed members and deletes the emptied key" {
    mkset s a b c
    assert_equal ":0\r\n" [rraw $c SREM s x y]
    assert_equal 2 [r $c SREM s a b a x]
    assert_equal {c} [r $c SMEMBERS s]
    assert_equal 1 [r $c SREM s c c]
    assert_equal 0 [r $c EXISTS s]
    assert_equal ":0\r\n" [rraw $c SREM s c]
    mkset si 1 2 3
    assert_equal 2 [r $c SREM si 1 3 04 -2 x]
    assert_equal intset [enc si]
    assert_equal 1 [r $c SREM si 2]
    assert_equal 0 [r $c EXISTS si]
}

test "SADD keeps the TTL, SREM of the last member removes the key and its TTL" {
    mkset s a
    r $c EXPIRE s 100
    r $c SADD s b
    assert_range [r $c TTL s] 90 100
    r $c SREM s a b
    assert_equal -2 [r $c TTL s]
    r $c SADD s x
    assert_equal -1 [r $c TTL s]
}

# ---------------------------------------------------------------------------
# Encodings
# ---------------------------------------------------------------------------

test "intset while all members are canonical integers" {
    mkset si 1 -1 0 9223372036854775807 -9223372036854775808 32767 -32768 2147483648
    assert_equal intset [enc si]
    assert_equal 8 [r $c SCARD si]
    # Sorted numerically, straight from the intset.
    assert_equal {-9223372036854775808 -32768 -1 0 1 32767 2147483648 9223372036854775807} \
        [r $c SMEMBERS si]
    assert_equal 1 [r $c SISMEMBER si 9223372036854775807]
    assert_equal 0 [r $c SISMEMBER si 01]
    assert_equal 0 [r $c SISMEMBER si 1.0]
}

test "a non-canonical integer converts to hashtable" {
    foreach m {01 -0 +1 " 1" "1 " 1.0 9223372036854775808 -9223372036854775809 abc ""} {
        mkset si 1 2 3
        assert_equal 1 [r $c SADD si $m] "adding '$m'"
        assert_equal hashtable [enc si] "encoding after '$m'"
        assert_equal [lsort [list 1 2 3 $m]] [smembers_sorted si]
        assert_equal 1 [r $c SISMEMBER si 2]
        assert_equal 1 [r $c SISMEMBER si $m]
    }
}

test "a set created with a string member is a hashtable even when it becomes all integers" {
    mkset sh a 1 2
    assert_equal hashtable [enc sh]
    r $c SREM sh a
    assert_equal hashtable [enc sh]
    assert_equal {1 2} [smembers_sorted sh]
    r $c DEL sh2
    r $c SADD sh2 x 1
    assert_equal hashtable [enc sh2]
}

test "intset converts to hashtable above set-max-intset-entries (512)" {
    mkset big {*}[range 1 512]
    assert_equal intset [enc big]
    assert_equal 0 [r $c SADD big 512]
    assert_equal intset [enc big]
    assert_equal 1 [r $c SADD big 513]
    assert_equal hashtable [enc big]
    assert_equal 513 [r $c SCARD big]
    assert_equal [range 1 513] [lsort -integer [r $c SMEMBERS big]]
    r $c SREM big 513
    assert_equal hashtable [enc big]
    # Created in one SADD with more than 512 integers.
    mkset big2 {*}[range 1 600]
    assert_equal hashtable [enc big2]
    assert_equal 600 [r $c SCARD big2]
}

test "set-max-intset-entries is read at each addition" {
    set old [lindex [r $c CONFIG GET set-max-intset-entries] 1]
    set failed [catch {
        r $c CONFIG SET set-max-intset-entries 3
        mkset s 1 2 3
        assert_equal intset [enc s]
        r $c SADD s 4
        assert_equal hashtable [enc s]
        r $c CONFIG SET set-max-intset-entries 0
        mkset s0 5
        assert_equal hashtable [enc s0]
        assert_equal {5} [r $c SMEMBERS s0]
    } err]
    r $c CONFIG SET set-max-intset-entries $old
    if {$failed} { error $err }
}

test "COPY keeps the encoding" {
    mkset si 3 1 2
    mkset sh a 1
    r $c SREM sh a
    r $c DEL si2 sh2
    r $c COPY si si2
    r $c COPY sh sh2
    assert_equal intset [enc si2]
    assert_equal hashtable [enc sh2]
    assert_equal {1 2 3} [r $c SMEMBERS si2]
    r $c SADD si2 4
    assert_equal 3 [r $c SCARD si]
    assert_equal {1} [r $c SMEMBERS sh2]
}

# ---------------------------------------------------------------------------
# SMEMBERS
# ---------------------------------------------------------------------------

test "SMEMBERS raw replies, RESP2 and RESP3" {
    mkset si 2 1
    r $c DEL nokey
    assert_equal "*2\r\n\$1\r\n1\r\n\$1\r\n2\r\n" [rraw $c SMEMBERS si]
    assert_equal "*0\r\n" [rraw $c SMEMBERS nokey]
    set c3 [client $srv -resp 3]
    assert_equal "~2\r\n\$1\r\n1\r\n\$1\r\n2\r\n" [rraw $c3 SMEMBERS si]
    assert_equal "~0\r\n" [rraw $c3 SMEMBERS nokey]
    assert_equal "~0\r\n" [rraw $c3 SINTER nokey]
    assert_equal "*2\r\n:1\r\n:0\r\n" [rraw $c3 SMISMEMBER si 1 5]
    close_client $c3
}

test "SMEMBERS of a large hashtable set" {
    set l {}
    for {set i 0} {$i < 1000} {incr i} { lappend l "m$i" }
    mkset big {*}$l
    assert_equal [lsort $l] [smembers_sorted big]
}

# ---------------------------------------------------------------------------
# SMOVE
# ---------------------------------------------------------------------------

test "SMOVE between existing sets" {
    mkset src a b 1
    mkset dst c
    assert_equal ":1\r\n" [rraw $c SMOVE src dst a]
    assert_equal {1 b} [smembers_sorted src]
    assert_equal {a c} [smembers_sorted dst]
    assert_equal ":0\r\n" [rraw $c SMOVE src dst zz]
    # Already in the destination: still removed from the source.
    r $c SADD dst b
    assert_equal 1 [r $c SMOVE src dst b]
    assert_equal {1} [r $c SMEMBERS src]
    assert_equal {a b c} [smembers_sorted dst]
}

test "SMOVE creates the destination and deletes the emptied source" {
    mkset src 5
    r $c DEL newdst
    assert_equal 1 [r $c SMOVE src newdst 5]
    assert_equal 0 [r $c EXISTS src]
    assert_equal {5} [r $c SMEMBERS newdst]
    assert_equal intset [enc newdst]
    mkset src x
    r $c DEL newdst2
    assert_equal 1 [r $c SMOVE src newdst2 x]
    assert_equal hashtable [enc newdst2]
    # A non-integer moved into an intset converts it.
    mkset src y
    assert_equal 1 [r $c SMOVE src newdst y]
    assert_equal hashtable [enc newdst]
    assert_equal {5 y} [smembers_sorted newdst]
}

test "SMOVE with the same source and destination" {
    mkset s a b
    assert_equal 1 [r $c SMOVE s s a]
    assert_equal 0 [r $c SMOVE s s zz]
    assert_equal {a b} [smembers_sorted s]
    r $c DEL nokey
    assert_equal 0 [r $c SMOVE nokey nokey a]
}

test "SMOVE type checks" {
    r $c SET str x
    mkset s a
    r $c DEL nokey
    # A missing source answers 0 before the destination's type is checked.
    assert_equal 0 [r $c SMOVE nokey str a]
    assert_error "WRONGTYPE*" {r $c SMOVE str s a}
    assert_error "WRONGTYPE*" {r $c SMOVE s str a}
    assert_error "WRONGTYPE*" {r $c SMOVE str nokey a}
    assert_equal {a} [r $c SMEMBERS s]
    assert_equal x [r $c GET str]
}

# ---------------------------------------------------------------------------
# SPOP
# ---------------------------------------------------------------------------

test "SPOP without count, both encodings" {
    foreach members [list [range 1 5] {a b c d e} {a 1 b 2}] {
        mkset s {*}$members
        set popped {}
        for {set i 0} {$i < [llength $members]} {incr i} {
            set e [r $c SPOP s]
            assert {[lsearch -exact $members $e] >= 0} "$e from $members"
            assert_equal 0 [r $c SISMEMBER s $e]
            lappend popped $e
        }
        assert_equal [lsort $members] [lsort $popped]
        assert_equal 0 [r $c EXISTS s]
        assert_equal "\$-1\r\n" [rraw $c SPOP s]
    }
}

test "SPOP with count: popped members are distinct and leave the set" {
    foreach members [list [range 1 20] [range 100 199] [concat a [range 1 30]] \
            [lmap i [range 1 50] {string cat m$i}]] {
        foreach count {1 2 5 9 15 19} {
            mkset s {*}$members
            set size [llength $members]
            set popped [r $c SPOP s $count]
            assert_equal $count [llength $popped]
            assert_distinct $popped
            foreach e $popped {
                assert {[lsearch -exact $members $e] >= 0}
                assert_equal 0 [r $c SISMEMBER s $e]
            }
            assert_equal [expr {$size - $count}] [r $c SCARD s]
            assert_equal [lsort $members] [lsort [concat $popped [r $c SMEMBERS s]]]
        }
    }
}

test "SPOP with count >= size returns everything and deletes the key" {
    mkset si 3 1 2
    assert_equal "*3\r\n\$1\r\n1\r\n\$1\r\n2\r\n\$1\r\n3\r\n" [rraw $c SPOP si 3]
    assert_equal 0 [r $c EXISTS si]
    mkset sh a b c
    assert_equal {a b c} [lsort [r $c SPOP sh 100]]
    assert_equal 0 [r $c EXISTS sh]
}

test "SPOP count 0, missing key, RESP3" {
    mkset s a
    r $c DEL nokey
    assert_equal "*0\r\n" [rraw $c SPOP s 0]
    assert_equal "*0\r\n" [rraw $c SPOP nokey 0]
    assert_equal "*0\r\n" [rraw $c SPOP nokey 5]
    assert_equal {a} [r $c SMEMBERS s]
    set c3 [client $srv -resp 3]
    assert_equal "~0\r\n" [rraw $c3 SPOP nokey 5]
    assert_equal "~0\r\n" [rraw $c3 SPOP s 0]
    assert_equal "_\r\n" [rraw $c3 SPOP nokey]
    assert_equal "~1\r\n\$1\r\na\r\n" [rraw $c3 SPOP s 1]
    close_client $c3
}

test "SPOP errors" {
    mkset s a
    r $c SET str x
    assert_error "ERR value is out of range, must be positive" {r $c SPOP s -1}
    assert_error "ERR value is out of range, must be positive" {r $c SPOP s abc}
    assert_error "ERR value is out of range, must be positive" {r $c SPOP nokey -1}
    assert_error "ERR syntax error" {r $c SPOP s 1 2}
    assert_error "WRONGTYPE*" {r $c SPOP str}
    assert_error "WRONGTYPE*" {r $c SPOP str 1}
    assert_equal {a} [r $c SMEMBERS s]
}

test "SPOP of most of a set rebuilds the rest with Redis' encoding" {
    # Popping 9 of 10 keeps one member drawn at random in a new set: an
    # intset if that member is an integer, even though the set was a
    # hashtable.
    set seen {}
    for {set i 0} {$i < 40} {incr i} {
        mkset s a b c d 1 2 3 4 5 6
        set popped [r $c SPOP s 9]
        assert_distinct $popped
        set left [r $c SMEMBERS s]
        assert_equal 1 [llength $left]
        if {[string is integer -strict $left]} {
            assert_equal intset [enc s]
        } else {
            assert_equal hashtable [enc s]
        }
        dict set seen [enc s] 1
    }
    assert_equal 2 [dict size $seen] "both encodings seen: $seen"
}

test "SPOP keeps the TTL of what remains" {
    mkset s a b c d e f g h i j
    r $c EXPIRE s 100
    r $c SPOP s 8
    r $c SPOP s
    assert_range [r $c TTL s] 90 100
}

# ---------------------------------------------------------------------------
# SRANDMEMBER
# ---------------------------------------------------------------------------

test "SRANDMEMBER without count" {
    foreach members [list {1 2 3} {a b c}] {
        mkset s {*}$members
        for {set i 0} {$i < 20} {incr i} {
            assert {[lsearch -exact $members [r $c SRANDMEMBER s]] >= 0}
        }
        assert_equal 3 [r $c SCARD s]
    }
    r $c DEL nokey
    assert_equal "\$-1\r\n" [rraw $c SRANDMEMBER nokey]
}

test "SRANDMEMBER with a positive count: distinct members" {
    foreach members [list [range 1 100] [lmap i [range 1 100] {string cat m$i}]] {
        mkset s {*}$members
        # Small counts draw members, counts near the size drop members.
        foreach count {1 2 10 33 34 50 99} {
            set got [r $c SRANDMEMBER s $count]
            assert_equal $count [llength $got] "count $count"
            assert_distinct $got
            assert_all_members s $got
        }
        assert_equal 100 [r $c SCARD s]
        assert_equal [lsort $members] [lsort [r $c SRANDMEMBER s 100]]
        assert_equal [lsort $members] [lsort [r $c SRANDMEMBER s 1000]]
    }
    mkset si 3 1 2
    assert_equal "*3\r\n\$1\r\n1\r\n\$1\r\n2\r\n\$1\r\n3\r\n" [rraw $c SRANDMEMBER si 5]
}

test "SRANDMEMBER with a negative count allows repeats" {
    mkset s a b
    set got [r $c SRANDMEMBER s -50]
    assert_equal 50 [llength $got]
    assert_all_members s [lsort -unique $got]
    assert_equal {a b} [lsort -unique $got] "both drawn in 50 tries"
    mkset si 7
    assert_equal "*3\r\n\$1\r\n7\r\n\$1\r\n7\r\n\$1\r\n7\r\n" [rraw $c SRANDMEMBER si -3]
}

test "SRANDMEMBER count 0, missing key, errors, RESP3" {
    mkset s a
    r $c DEL nokey
    r $c SET str x
    assert_equal "*0\r\n" [rraw $c SRANDMEMBER s 0]
    assert_equal "*0\r\n" [rraw $c SRANDMEMBER nokey 5]
    assert_equal "*0\r\n" [rraw $c SRANDMEMBER nokey -5]
    assert_error "ERR value is not an integer or out of range" {r $c SRANDMEMBER s abc}
    assert_error "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807" \
        {r $c SRANDMEMBER s -9223372036854775808}
    assert_error "ERR syntax error" {r $c SRANDMEMBER s 1 2}
    assert_error "WRONGTYPE*" {r $c SRANDMEMBER str}
    assert_error "WRONGTYPE*" {r $c SRANDMEMBER str 2}
    set c3 [client $srv -resp 3]
    assert_equal "*1\r\n\$1\r\na\r\n" [rraw $c3 SRANDMEMBER s 3]
    assert_equal "*0\r\n" [rraw $c3 SRANDMEMBER nokey 3]
    assert_equal "_\r\n" [rraw $c3 SRANDMEMBER nokey]
    close_client $c3
}

# ---------------------------------------------------------------------------
# SINTER SINTERSTORE SINTERCARD
# ---------------------------------------------------------------------------

test "SINTER across encodings" {
    mkset i1 1 2 3 4 5
    mkset i2 3 4 5 6
    mkset h1 a 3 5 b
    assert_equal "*3\r\n\$1\r\n3\r\n\$1\r\n4\r\n\$1\r\n5\r\n" [rraw $c SINTER i1 i2]
    assert_equal {3 5} [lsort [r $c SINTER i1 i2 h1]]
    assert_equal {3 5} [lsort [r $c SINTER h1 i1]]
    assert_equal {3 5 a b} [lsort [r $c SINTER h1 h1]]
    assert_equal {} [r $c SINTER i1 h1 nokey]
    assert_equal "*0\r\n" [rraw $c SINTER nokey i1]
}

test "SINTERSTORE stores, replaces and deletes" {
    mkset i1 1 2 3
    mkset i2 2 3 4
    mkset h1 x 2 3 y
    r $c SET dst string
    r $c EXPIRE dst 100
    assert_equal ":2\r\n" [rraw $c SINTERSTORE dst i1 i2]
    assert_equal -1 [r $c TTL dst]
    assert_equal intset [enc dst]
    assert_equal {2 3} [r $c SMEMBERS dst]
    assert_equal 2 [r $c SINTERSTORE dst h1 h1 i1]
    assert_equal intset [enc dst]
    assert_equal 4 [r $c SINTERSTORE dst h1 h1]
    assert_equal 4 [r $c SCARD dst]
    assert_equal hashtable [enc dst]
    # Empty results delete the destination.
    assert_equal ":0\r\n" [rraw $c SINTERSTORE dst i1 nokey]
    assert_equal 0 [r $c EXISTS dst]
    r $c SET dst string
    mkset e1 a
    assert_equal 0 [r $c SINTERSTORE dst i1 e1]
    assert_equal 0 [r $c EXISTS dst]
    # The destination may be one of the sources.
    assert_equal 2 [r $c SINTERSTORE i1 i1 i2]
    assert_equal {2 3} [r $c SMEMBERS i1]
}

test "SINTERSTORE result encodings: more than 512 integers is a hashtable" {
    mkset a {*}[range 1 600]
    mkset b {*}[range 1 700]
    assert_equal 600 [r $c SINTERSTORE dst a b]
    assert_equal hashtable [enc dst]
    mkset b2 {*}[range 100 611] x
    assert_equal 501 [r $c SINTERSTORE dst a b2]
    assert_equal intset [enc dst]
}

test "SINTERCARD counts and LIMIT" {
    mkset i1 1 2 3 4 5
    mkset i2 3 4 5 6
    mkset h1 a 3 5 b
    assert_equal ":3\r\n" [rraw $c SINTERCARD 2 i1 i2]
    assert_equal 2 [r $c SINTERCARD 3 i1 i2 h1]
    assert_equal 4 [r $c SINTERCARD 1 h1]
    assert_equal 2 [r $c SINTERCARD 2 i1 i2 LIMIT 2]
    assert_equal 3 [r $c SINTERCARD 2 i1 i2 limit 0]
    assert_equal 3 [r $c SINTERCARD 2 i1 i2 LIMIT 10]
    assert_equal 1 [r $c SINTERCARD 2 i1 i2 LIMIT 5 LIMIT 1]
    assert_equal 0 [r $c SINTERCARD 2 i1 nokey]
    assert_equal 0 [r $c SINTERCARD 1 nokey]
}

test "SINTERCARD errors" {
    r $c SET str x
    foreach {argl err} {
        {0 a} "ERR numkeys should be greater than 0"
        {-1 a} "ERR numkeys should be greater than 0"
        {abc a} "ERR numkeys should be greater than 0"
        {99999999999999999999 a} "ERR numkeys should be greater than 0"
        {2 a} "ERR Number of keys can't be greater than number of args"
        {9223372036854775807 a} "ERR Number of keys can't be greater than number of args"
        {1 a LIMIT -1} "ERR LIMIT can't be negative"
        {1 a LIMIT abc} "ERR LIMIT can't be negative"
        {1 a LIMIT} "ERR syntax error"
        {1 a foo 1} "ERR syntax error"
        {1 str} "WRONGTYPE Operation against a key holding the wrong kind of value"
        {2 nokey str} "WRONGTYPE Operation against a key holding the wrong kind of value"
    } {
        assert_equal $err [assert_error * {r $c SINTERCARD {*}$argl}] "SINTERCARD $argl"
    }
}

# ---------------------------------------------------------------------------
# SUNION SUNIONSTORE SDIFF SDIFFSTORE
# ---------------------------------------------------------------------------

test "SUNION and SUNIONSTORE" {
    mkset i1 5 1 3
    mkset i2 3 4
    mkset h1 a 1
    r $c DEL nokey
    assert_equal "*4\r\n\$1\r\n1\r\n\$1\r\n3\r\n\$1\r\n4\r\n\$1\r\n5\r\n" [rraw $c SUNION i2 nokey i1]
    assert_equal {1 3 4 5 a} [lsort [r $c SUNION i1 i2 h1]]
    assert_equal "*0\r\n" [rraw $c SUNION nokey]
    assert_equal ":4\r\n" [rraw $c SUNIONSTORE dst i1 i2]
    assert_equal intset [enc dst]
    assert_equal 5 [r $c SUNIONSTORE dst dst h1]
    assert_equal hashtable [enc dst]
    assert_equal 0 [r $c SUNIONSTORE dst nokey]
    assert_equal 0 [r $c EXISTS dst]
    mkset a {*}[range 1 300]
    mkset b {*}[range 301 513]
    assert_equal 513 [r $c SUNIONSTORE dst a b]
    assert_equal hashtable [enc dst]
    assert_equal 300 [r $c SUNIONSTORE dst a nokey a]
    assert_equal intset [enc dst]
}

test "SDIFF and SDIFFSTORE" {
    mkset i1 1 2 3 4 5
    mkset i2 2 4
    mkset h1 a 1 b
    r $c DEL nokey
    assert_equal "*3\r\n\$1\r\n1\r\n\$1\r\n3\r\n\$1\r\n5\r\n" [rraw $c SDIFF i1 i2]
    assert_equal {3 5} [r $c SDIFF i1 i2 h1 nokey]
    assert_equal {a b} [lsort [r $c SDIFF h1 i1]]
    assert_equal "*0\r\n" [rraw $c SDIFF nokey i1]
    assert_equal {} [r $c SDIFF i1 nokey i1]
    assert_equal [range 1 5] [r $c SDIFF i1 nokey]
    assert_equal 2 [r $c SDIFFSTORE dst i1 i2 h1]
    assert_equal intset [enc dst]
    assert_equal 0 [r $c SDIFFSTORE dst i1 i1]
    assert_equal 0 [r $c EXISTS dst]
}

test "SDIFFSTORE encoding follows Redis' choice of algorithm" {
    # {a 1..10} minus {a}: walking the first set keeps only integers (intset);
    # with three small sets to subtract, Redis copies the whole first set and
    # removes, so the result stays a hashtable.
    mkset a a {*}[range 1 10]
    mkset b a
    mkset x x
    mkset y y
    assert_equal 10 [r $c SDIFFSTORE r1 a b]
    assert_equal intset [enc r1]
    assert_equal 10 [r $c SDIFFSTORE r2 a b x y]
    assert_equal hashtable [enc r2]
    assert_equal [range 1 10] [lsort -integer [r $c SMEMBERS r2]]
}

test "multi-key commands: WRONGTYPE anywhere, even after a missing key" {
    r $c SET str x
    mkset s a
    r $c DEL nokey
    foreach cmd {SINTER SUNION SDIFF} {
        assert_error "WRONGTYPE*" {r $c $cmd nokey str}
        assert_error "WRONGTYPE*" {r $c $cmd s str}
        assert_error "WRONGTYPE*" {r $c $cmd str nokey}
        assert_error "WRONGTYPE*" {r $c ${cmd}STORE dst s nokey str}
    }
    assert_equal x [r $c GET str]
    # A string destination is simply replaced.
    assert_equal 1 [r $c SUNIONSTORE str s]
    assert_equal set [r $c TYPE str]
}

# ---------------------------------------------------------------------------
# SSCAN
# ---------------------------------------------------------------------------

test "SSCAN of an intset returns everything with cursor 0" {
    mkset si 3 1 2 10 11
    assert_equal "*2\r\n\$1\r\n0\r\n*5\r\n\$1\r\n1\r\n\$1\r\n2\r\n\$1\r\n3\r\n\$2\r\n10\r\n\$2\r\n11\r\n" \
        [rraw $c SSCAN si 0 COUNT 1]
    assert_equal {0 {1 10 11}} [r $c SSCAN si 123 MATCH 1*]
    assert_equal {0 {}} [r $c SSCAN si 0 MATCH x*]
}

test "SSCAN of a hashtable visits every member" {
    set l {}
    for {set i 0} {$i < 500} {incr i} { lappend l "m$i" }
    mkset sh {*}$l
    foreach count {1 10 100} {
        set cur 0
        set got {}
        set rounds 0
        while 1 {
            lassign [r $c SSCAN sh $cur COUNT $count] cur page
            lappend got {*}$page
            incr rounds
            if {$cur eq "0"} break
        }
        assert_equal [lsort $l] [lsort -unique $got] "COUNT $count"
        if {$count == 1} { assert {$rounds > 10} }
    }
    set cur 0
    set got {}
    while 1 {
        lassign [r $c SSCAN sh $cur MATCH m1?] cur page
        lappend got {*}$page
        if {$cur eq "0"} break
    }
    assert_equal [lsort [lsearch -all -inline $l m1?]] [lsort -unique $got]
}

test "SSCAN errors and missing keys" {
    r $c SET str x
    mkset s a
    r $c DEL nokey
    assert_equal "*2\r\n\$1\r\n0\r\n*0\r\n" [rraw $c SSCAN nokey 0]
    # Options are only parsed once the key was found.
    assert_equal "*2\r\n\$1\r\n0\r\n*0\r\n" [rraw $c SSCAN nokey 0 COUNT 0]
    assert_error "ERR invalid cursor" {r $c SSCAN nokey abc}
    assert_error "ERR invalid cursor" {r $c SSCAN str abc}
    assert_error "WRONGTYPE*" {r $c SSCAN str 0}
    assert_error "WRONGTYPE*" {r $c SSCAN str 0 COUNT 0}
    assert_error "ERR syntax error" {r $c SSCAN s 0 COUNT 0}
    assert_error "ERR syntax error" {r $c SSCAN s 0 COUNT -1}
    assert_error "ERR value is not an integer or out of range" {r $c SSCAN s 0 COUNT abc}
    assert_error "ERR syntax error" {r $c SSCAN s 0 MATCH}
    assert_error "ERR syntax error" {r $c SSCAN s 0 TYPE string}
    assert_error "ERR syntax error" {r $c SSCAN s 0 foo bar}
}

# ---------------------------------------------------------------------------
# Errors common to all commands
# ---------------------------------------------------------------------------

test "WRONGTYPE on a string key" {
    r $c SET str x
    foreach cmd {
        {SADD str a} {SREM str a} {SCARD str} {SISMEMBER str a} {SMISMEMBER str a}
        {SMEMBERS str} {SINTER str} {SINTERSTORE d str} {SUNION str} {SDIFF str}
    } {
        assert_equal "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n" \
            [rraw $c {*}$cmd] $cmd
    }
    assert_equal x [r $c GET str]
}

test "wrong number of arguments" {
    foreach cmd {
        SADD {SADD k} SREM {SREM k} SCARD {SCARD k x} SISMEMBER {SISMEMBER k}
        {SISMEMBER k a b} SMISMEMBER {SMISMEMBER k} SMEMBERS {SMEMBERS k x} SPOP
        SRANDMEMBER SMOVE {SMOVE a b} {SMOVE a b c d} SINTER SINTERCARD {SINTERCARD 1}
        SINTERSTORE {SINTERSTORE d} SUNION SUNIONSTORE {SUNIONSTORE d} SDIFF
        SDIFFSTORE {SDIFFSTORE d} SSCAN {SSCAN k}
    } {
        set name [string tolower [lindex $cmd 0]]
        assert_equal "ERR wrong number of arguments for '$name' command" \
            [assert_error * {r $c {*}$cmd}] $cmd
    }
}

test "keyspace events of the set commands" {
    set old [lindex [r $c CONFIG GET notify-keyspace-events] 1]
    set sub [client $srv]
    set events {
        {sadd e:a} {srem e:a} {srem e:a} {del e:a} {sadd e:b} {sadd e:c} {spop e:c}
        {spop e:c} {del e:c} {sinterstore e:d} {sunionstore e:d} {del e:d}
        {srem e:b} {del e:b}
    }
    set failed [catch {
        r $c CONFIG SET notify-keyspace-events EA
        send_cmd $sub PSUBSCRIBE __keyevent@9__:*
        read_reply $sub
        r $c SELECT 9
        r $c FLUSHDB
        r $c SADD e:a 1 2
        r $c SADD e:a 1
        r $c SREM e:a 1
        r $c SREM e:a 7
        r $c SMOVE e:a e:b 2
        r $c SMOVE e:b e:b 2
        r $c SADD e:c x y
        r $c SPOP e:c
        r $c SPOP e:c 5
        r $c SPOP e:c 0
        r $c SRANDMEMBER e:b
        r $c SINTERSTORE e:d e:b
        r $c SUNIONSTORE e:d e:b nokey
        r $c SDIFFSTORE e:d e:b e:b
        r $c SINTERSTORE e:d nokey
        r $c SREM e:b 2
        set got {}
        foreach expected $events {
            lassign [read_reply $sub] kind pattern channel key
            lappend got [list [string range $channel [string length __keyevent@9__:] end] $key]
        }
        send_cmd $sub PING
        lappend got [read_reply $sub]
    } err]
    close_client $sub
    r $c SELECT 0
    r $c CONFIG SET notify-keyspace-events $old
    if {$failed} { error $err }
    # The PING reply right after the last event: nothing more was sent.
    assert_equal [list {*}$events {pong {}}] $got
}

test "commands are case-insensitive and options too" {
    mkset s 1 2
    assert_equal 2 [r $c sCaRd s]
    assert_equal 1 [r $c sintercard 1 s LiMiT 1]
    assert_equal {0 {1 2}} [r $c sscan s 0 count 5 match *]
}

# ---------------------------------------------------------------------------
# cairn only: single lookup and propagation
# ---------------------------------------------------------------------------

if {[catch {r $c DEBUG LOOKUPS}]} {
    skip "set internals" "server has no DEBUG LOOKUPS (not cairn)"
    finish
}

test "single lookup: SADD and SREM search the keyspace once" {
    r $c FLUSHALL
    foreach cmd {{SADD k a} {SADD k b c} {SADD k a} {SADD i 1} {SADD i 2 x} {SREM k a}
        {SREM k zz} {SREM nokey a} {SPOP k 0} {SPOP k}} {
        assert_equal 1 [lookups {*}$cmd] "lookups for $cmd"
    }
}

test "propagation: SPOP becomes SREM or DEL, reads and no-ops are not propagated" {
    r $c FLUSHALL
    r $c SELECT 0
    r $c SADD s a
    propagated
    set e [r $c SPOP s]
    assert_equal [resp SREM s $e] [propagated]
    r $c SADD s 1 2 3
    propagated
    r $c SPOP s 5
    r $c SPOP nokey 2
    r $c SPOP nokey
    r $c SRANDMEMBER s
    r $c SREM nokey a
    r $c SADD t x
    r $c SADD t x
    r $c SMOVE t t x
    r $c SINTERSTORE nokey2 nokey
    assert_equal "[resp DEL s][resp SADD t x]" [propagated]
    r $c SADD s a b c d e f g h i j
    propagated
    set p1 [r $c SPOP s 2]
    set p2 [r $c SPOP s 7]
    assert_equal "[resp SREM s {*}$p1][resp SREM s {*}$p2]" [propagated]
    assert_equal 1 [r $c SCARD s]
}

finish
