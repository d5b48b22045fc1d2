# hyperloglog.tcl -- PFADD PFCOUNT PFMERGE PFDEBUG PFSELFTEST: Redis' exact
# HyperLogLog string format (header, sparse opcodes, dense registers, the
# cached cardinality), sparse to dense promotion, estimates, error texts,
# corrupted values; and byte-for-byte agreement with the reference server
# (HyperLogLogs built on both, and values copied from one to the other).

source [file join [file dirname [info script]] .. helpers harness.tcl]

set srv [start_server]
set c [client $srv]
# One write per request: with Tcl's 4 KB channel buffer a 12 KB dense value
# goes out in pieces and the last one waits for a delayed ACK (40 ms).
fconfigure $c -buffersize 1048576
r $c FLUSHALL

set wrongtype_hll "WRONGTYPE Key is not a valid HyperLogLog string value."
set invalid_hll "INVALIDOBJ Corrupted HLL object detected"

proc dirty {} { info_field $::c rdb_changes_since_last_save }

# Bytes <-> hex, for readable expectations.
proc hex {s} { binary scan $s H* h; return $h }
proc unhex {h} { binary format H* $h }

# The 16-byte header: magic, encoding, 3 unused, 8 cache bytes.
proc header {enc card_hex} { unhex "48594c4c[format %02x $enc]000000$card_hex" }

# n distinct elements named PREFIX0 .. PREFIX(n-1).
proc elements {prefix n} {
    set l {}
    for {set i 0} {$i < $n} {incr i} { lappend l "$prefix$i" }
    return $l
}

# PFADD in batches (keeps each request reasonably small).
proc pfadd_many {c key els} {
    for {set i 0} {$i < [llength $els]} {incr i 10000} {
        r $c PFADD $key {*}[lrange $els $i [expr {$i + 9999}]]
    }
}

# ---------------------------------------------------------------------------
# Format
# ---------------------------------------------------------------------------

test "PFADD creates an empty sparse HyperLogLog: header plus one XZERO" {
    r $c DEL h:e
    assert_equal 1 [r $c PFADD h:e]
    # Stale cache flag set: PFADD marks the value modified.
    assert_equal "[header 1 0000000000000080]\x7f\xff" [r $c GET h:e]
    assert_equal raw [r $c OBJECT ENCODING h:e]
    assert_equal 0 [r $c PFADD h:e]
    assert_equal 0 [r $c PFCOUNT h:e]
    # PFCOUNT stored the (zero) cardinality and cleared the stale flag.
    assert_equal "[header 1 0000000000000000]\x7f\xff" [r $c GET h:e]
}

test "PFADD a b c gives Redis' exact sparse bytes" {
    r $c DEL h:abc
    assert_equal 1 [r $c PFADD h:abc a b c]
    assert_equal "48594c4c01000000000000000000008060f38050b1844bfb80425a" [hex [r $c GET h:abc]]
    assert_equal "Z:8436 v:1,1 Z:4274 v:2,1 Z:3068 v:1,1 Z:603" [r $c PFDEBUG DECODE h:abc]
    assert_equal 3 [r $c PFCOUNT h:abc]
    assert_equal "48594c4c01000000030000000000000060f38050b1844bfb80425a" [hex [r $c GET h:abc]]
}

test "PFADD answers 0 when no register changes" {
    r $c DEL h:z
    assert_equal 1 [r $c PFADD h:z a]
    assert_equal 0 [r $c PFADD h:z a]
    assert_equal 1 [r $c PFADD h:z a b]
    assert_equal 0 [r $c PFADD h:z b a a]
}

test "PFCOUNT estimates (the values Redis 7.0 gives)" {
    r $c DEL h:10 h:100 h:1000 h:10000
    foreach n {10 100 1000 10000} {
        set els {}
        for {set i 1} {$i <= $n} {incr i} { lappend els $i }
        pfadd_many $c h:$n $els
    }
    assert_equal 10 [r $c PFCOUNT h:10]
    assert_equal 100 [r $c PFCOUNT h:100]
    assert_equal 1001 [r $c PFCOUNT h:1000]
    assert_equal 9988 [r $c PFCOUNT h:10000]
    assert_equal 47 [r $c STRLEN h:10]
    assert_equal 1922 [r $c STRLEN h:1000]
    assert_equal sparse [r $c PFDEBUG ENCODING h:1000]
    assert_equal dense [r $c PFDEBUG ENCODING h:10000]
    assert_equal 12304 [r $c STRLEN h:10000]
    # The union of nested sets is the biggest one.
    assert_equal 1001 [r $c PFCOUNT h:10 h:100 h:1000]
    assert_equal 9988 [r $c PFCOUNT h:1000 h:10000 h:nokey]
}

test "PFCOUNT of missing keys is 0" {
    assert_equal 0 [r $c PFCOUNT h:nokey]
    assert_equal 0 [r $c PFCOUNT h:nokey h:nokey2]
    assert_equal 0 [r $c EXISTS h:nokey]
}

test "estimates stay within a few percent for large sets" {
    r $c DEL h:big
    pfadd_many $c h:big [elements "element:" 100000]
    set n [r $c PFCOUNT h:big]
    assert_range $n 97000 103000
}

# ---------------------------------------------------------------------------
# The cached cardinality
# ---------------------------------------------------------------------------

test "PFCOUNT caches the cardinality in the header, PFADD marks it stale" {
    r $c DEL h:c
    r $c PFADD h:c {*}[elements x 300]
    set v [r $c GET h:c]
    assert_equal 0x80 [format 0x%02x [expr {[scan [string index $v 15] %c] & 0x80}]]
    set n [r $c PFCOUNT h:c]
    set v [r $c GET h:c]
    assert_equal [hex [binary format w $n]] [hex [string range $v 8 15]]
    assert_equal 0 [expr {[scan [string index $v 15] %c] & 0x80}]
    # No change, cache kept; a change marks it stale again.
    r $c PFADD h:c x1
    assert_equal $v [r $c GET h:c]
    r $c PFADD h:c brand-new-element
    assert_equal 0x80 [format 0x%02x [expr {[scan [string index [r $c GET h:c] 15] %c] & 0x80}]]
}

test "a valid cached cardinality is returned as is" {
    r $c DEL h:f
    r $c PFADD h:f a b c
    set v [r $c GET h:f]
    # Forge a cache of 12345 (0x3039), valid.
    set forged "[string range $v 0 7][unhex 3930000000000000][string range $v 16 end]"
    r $c SET h:f $forged
    assert_equal 12345 [r $c PFCOUNT h:f]
    assert_equal 3 [r $c PFCOUNT h:f h:nokey] "several keys never use the cache"
}

test "PFCOUNT is a change only when it refreshes the cache" {
    r $c DEL h:d
    r $c PFADD h:d a b c d
    set d0 [dirty]
    r $c PFCOUNT h:d
    assert_equal [expr {$d0 + 1}] [dirty]
    r $c PFCOUNT h:d
    assert_equal [expr {$d0 + 1}] [dirty]
    r $c PFCOUNT h:d h:d
    assert_equal [expr {$d0 + 1}] [dirty]
}

test "a HyperLogLog stored as embstr works and becomes raw" {
    r $c DEL h:m
    r $c PFADD h:m
    r $c SET h:m [r $c GET h:m]
    assert_equal embstr [r $c OBJECT ENCODING h:m]
    assert_equal 0 [r $c PFCOUNT h:m]
    assert_equal raw [r $c OBJECT ENCODING h:m]
}

# ---------------------------------------------------------------------------
# Sparse and dense
# ---------------------------------------------------------------------------

test "the sparse form is promoted past hll-sparse-max-bytes" {
    r $c CONFIG SET hll-sparse-max-bytes 60
    catch {
        r $c DEL h:p
        r $c PFADD h:p a b c
        assert_equal sparse [r $c PFDEBUG ENCODING h:p]
        r $c PFADD h:p {*}[elements y 30]
        assert_equal dense [r $c PFDEBUG ENCODING h:p]
        assert_equal 12304 [r $c STRLEN h:p]
        assert_range [r $c PFCOUNT h:p] 32 34
    } err
    r $c CONFIG SET hll-sparse-max-bytes 3000
    if {$err ne ""} { error $err }
}

test "PFDEBUG TODENSE and GETREG" {
    r $c DEL h:t
    r $c PFADD h:t a b c
    set count [r $c PFCOUNT h:t]
    assert_equal 1 [r $c PFDEBUG TODENSE h:t]
    assert_equal 0 [r $c PFDEBUG TODENSE h:t]
    assert_equal dense [r $c PFDEBUG ENCODING h:t]
    set regs [r $c PFDEBUG GETREG h:t]
    assert_equal 16384 [llength $regs]
    assert_equal 1 [lindex $regs 8436]
    assert_equal 2 [lindex $regs 12711]
    assert_equal 1 [lindex $regs 15780]
    assert_equal 4 [expr [join $regs +]]
    # The header, cache included, survives the conversion.
    assert_equal $count [r $c PFCOUNT h:t]
    assert_error "ERR HLL encoding is not sparse" {r $c PFDEBUG DECODE h:t}
    # GETREG converts a sparse value too.
    r $c DEL h:t2
    r $c PFADD h:t2 a
    assert_equal 2 [expr [join [r $c PFDEBUG GETREG h:t2] +]]
    assert_equal dense [r $c PFDEBUG ENCODING h:t2]
}

test "PFDEBUG errors" {
    r $c PFADD h:x a
    assert_error "ERR Unknown PFDEBUG subcommand 'foo'" {r $c PFDEBUG foo h:x}
    assert_error "ERR The specified key does not exist" {r $c PFDEBUG decode h:nokey}
    assert_error "ERR The specified key does not exist" {r $c PFDEBUG foo h:nokey}
    r $c SET h:s foo
    assert_error $wrongtype_hll {r $c PFDEBUG getreg h:s}
    assert_error "ERR wrong number of arguments for 'pfdebug' command" {r $c PFDEBUG encoding}
}

# ---------------------------------------------------------------------------
# PFMERGE
# ---------------------------------------------------------------------------

test "PFMERGE: union into a new key, the destination is an input too" {
    r $c DEL h:m1 h:m2 h:m3 h:md
    r $c PFADD h:m1 a b c
    r $c PFADD h:m2 c d e
    assert_equal OK [r $c PFMERGE h:md h:m1 h:m2 h:nokey]
    assert_equal 5 [r $c PFCOUNT h:md]
    assert_equal sparse [r $c PFDEBUG ENCODING h:md]
    r $c PFADD h:m3 f g
    assert_equal OK [r $c PFMERGE h:m3 h:md]
    assert_equal 7 [r $c PFCOUNT h:m3]
    # No sources: an empty HyperLogLog is created.
    r $c DEL h:md
    assert_equal OK [r $c PFMERGE h:md]
    assert_equal 0 [r $c PFCOUNT h:md]
}

test "PFMERGE turns the destination dense when an input is dense" {
    r $c DEL h:sp h:dn h:out
    r $c PFADD h:sp a
    r $c PFADD h:dn b
    r $c PFDEBUG TODENSE h:dn
    r $c PFMERGE h:out h:sp h:dn
    assert_equal dense [r $c PFDEBUG ENCODING h:out]
    assert_equal 2 [r $c PFCOUNT h:out]
}

# ---------------------------------------------------------------------------
# Errors and corrupted values
# ---------------------------------------------------------------------------

test "strings that are not HyperLogLogs" {
    r $c SET h:s foo
    r $c SET h:i 12345678901234567
    r $c SET h:short HYLL
    r $c SET h:magic "HYLX\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x7f\xff"
    r $c SET h:enc "HYLL\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x7f\xff"
    r $c SET h:dlen "HYLL\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x7f\xff"
    r $c PFADD h:ok a
    foreach k {h:s h:i h:short h:magic h:enc h:dlen} {
        assert_error $wrongtype_hll {r $c PFADD $k a}
        assert_error $wrongtype_hll {r $c PFCOUNT $k}
        assert_error $wrongtype_hll {r $c PFCOUNT h:ok $k}
        assert_error $wrongtype_hll {r $c PFMERGE h:ok $k}
        assert_error $wrongtype_hll {r $c PFMERGE $k h:ok}
    }
    assert_equal foo [r $c GET h:s]
}

test "PF commands against another type" -tags needs-lists {
    r $c DEL h:list
    r $c RPUSH h:list a
    assert_error "WRONGTYPE Operation against a key holding the wrong kind of value" {r $c PFADD h:list a}
    assert_error "WRONGTYPE Operation against a key holding the wrong kind of value" {r $c PFCOUNT h:list}
    assert_error "WRONGTYPE Operation against a key holding the wrong kind of value" {r $c PFMERGE h:list}
    assert_error "WRONGTYPE Operation against a key holding the wrong kind of value" {r $c PFDEBUG encoding h:list}
}

test "corrupted sparse opcodes are reported, not trusted" {
    # 16383 registers only.
    r $c SET h:bad "[header 1 0000000000000080]\x7f\xfe"
    assert_error $invalid_hll {r $c PFCOUNT h:bad}
    assert_error $invalid_hll {r $c PFCOUNT h:bad h:bad}
    assert_error $invalid_hll {r $c PFMERGE h:out h:bad}
    assert_error $invalid_hll {r $c PFDEBUG GETREG h:bad}
    assert_error $invalid_hll {r $c PFDEBUG TODENSE h:bad}
    # A complete run followed by one more VAL.
    r $c SET h:bad "[header 1 0000000000000080]\x7f\xff\x80"
    assert_error $invalid_hll {r $c PFCOUNT h:bad}
    assert_error $invalid_hll {r $c PFCOUNT h:bad h:ok}
    assert_error $invalid_hll {r $c PFDEBUG TODENSE h:bad}
    # No opcodes at all: adding finds no register.
    r $c SET h:bad [header 1 0000000000000080]
    assert_error $invalid_hll {r $c PFADD h:bad a}
    assert_error $invalid_hll {r $c PFCOUNT h:bad}
    # An XZERO cut in half.
    r $c SET h:bad "[header 1 0000000000000080]\x7f"
    assert_error $invalid_hll {r $c PFCOUNT h:bad}
    assert_equal PONG [r $c PING]
}

test "random corruptions never crash the server" {
    r $c DEL h:src
    r $c PFADD h:src {*}[elements r 200]
    set good [r $c GET h:src]
    set seed 7
    for {set i 0} {$i < 300} {incr i} {
        set v $good
        for {set j 0} {$j < 3} {incr j} {
            set seed [expr {($seed * 1103515245 + 12345) & 0x7fffffff}]
            set pos [expr {16 + ($seed >> 8) % ([string length $v] - 16)}]
            set v [string replace $v $pos $pos [format %c [expr {$seed & 255}]]]
        }
        if {$i % 3 == 1} { set v [string range $v 0 end-[expr {$seed % 7}]] }
        r $c SET h:cor $v
        catch {r $c PFADD h:cor a b c d e f g}
        catch {r $c PFCOUNT h:cor}
        catch {r $c PFCOUNT h:cor h:src}
        catch {r $c PFMERGE h:cor2 h:cor}
        catch {r $c PFDEBUG DECODE h:cor}
        catch {r $c PFDEBUG GETREG h:cor}
    }
    assert_equal PONG [r $c PING]
}

test "PFSELFTEST" {
    assert_equal OK [r $c PFSELFTEST]
}

test "arity" {
    assert_error "ERR wrong number of arguments for 'pfadd' command" {r $c PFADD}
    assert_error "ERR wrong number of arguments for 'pfcount' command" {r $c PFCOUNT}
    assert_error "ERR wrong number of arguments for 'pfmerge' command" {r $c PFMERGE}
    assert_error "ERR wrong number of arguments for 'pfselftest' command" {r $c PFSELFTEST x}
}

# ---------------------------------------------------------------------------
# Keyspace events, and their order relative to the reply
# ---------------------------------------------------------------------------

test "keyspace events of the PF commands, before the reply as in Redis" {
    r $c FLUSHALL
    check_events {
        {PFADD e:h a}             {new pfadd reply}
        {PFADD e:h a}             {reply}
        {PFADD e:h b}             {pfadd reply}
        {PFCOUNT e:h}             {reply}
        {PFCOUNT e:none}          {keymiss reply}
        {PFCOUNT e:h e:none}      {keymiss reply}
        {PFMERGE e:m e:h}         {keymiss new pfadd reply}
        {PFMERGE e:m}             {pfadd reply}
        {PFDEBUG ENCODING e:h}    {reply}
        {PFDEBUG TODENSE e:h}     {reply}
    }
}

# ---------------------------------------------------------------------------
# Byte for byte with the reference server
# ---------------------------------------------------------------------------

if {$::cairn(reference) eq ""} {
    foreach t {
        "PFADD builds the same bytes as the reference"
        "PFMERGE and PFCOUNT of several keys match the reference"
        "HyperLogLogs copied between the servers count the same"
        "corrupted values get the same replies as on the reference"
    } { skip $t "no reference server (CAIRN_REFERENCE)" }
} else {
    set ref [start_server -binary $::cairn(reference)]
    set rc [client $ref]
    fconfigure $rc -buffersize 1048576
    r $rc FLUSHALL

    test "PFADD builds the same bytes as the reference" {
        foreach {n maxbytes} {1 3000 100 3000 1000 3000 3000 3000 100000 3000 1000 0 1000 100 5000 20000} {
            r $c CONFIG SET hll-sparse-max-bytes $maxbytes
            r $rc CONFIG SET hll-sparse-max-bytes $maxbytes
            set els [elements "e$n:" $n]
            # A few binary elements in every set.
            lappend els "\x00" "\xff\r\n" "" [string repeat z 100]
            foreach s [list $c $rc] {
                r $s DEL cmp
                pfadd_many $s cmp $els
            }
            set a [r $c GET cmp]
            set b [r $rc GET cmp]
            assert_equal [string length $b] [string length $a] "length, n=$n max=$maxbytes"
            assert {$a eq $b} "bytes differ, n=$n max=$maxbytes"
            assert_equal [r $rc PFCOUNT cmp] [r $c PFCOUNT cmp] "n=$n"
            assert {[r $c GET cmp] eq [r $rc GET cmp]} "cached cardinality, n=$n"
            # One element at a time takes other split/merge paths.
            foreach s [list $c $rc] {
                r $s DEL one
                foreach e [lrange $els 0 400] { r $s PFADD one $e }
            }
            assert {[r $c GET one] eq [r $rc GET one]} "one at a time, n=$n max=$maxbytes"
        }
        r $c CONFIG SET hll-sparse-max-bytes 3000
        r $rc CONFIG SET hll-sparse-max-bytes 3000
    }

    test "PFMERGE and PFCOUNT of several keys match the reference" {
        foreach s [list $c $rc] {
            r $s DEL m1 m2 m3 m4 dst
            pfadd_many $s m1 [elements a 500]
            pfadd_many $s m2 [elements b 2000]
            pfadd_many $s m3 [elements c 20000]
            r $s PFADD m4 x y z
        }
        foreach cmd {
            {PFCOUNT m1 m2} {PFCOUNT m1 m2 m3} {PFCOUNT m4 nokey m1}
            {PFMERGE dst m1 m4} {GET dst} {PFMERGE dst m2} {GET dst} {PFMERGE dst m3} {GET dst}
            {PFMERGE m4 m1} {GET m4} {PFCOUNT dst} {GET dst} {PFMERGE new} {GET new}
        } {
            assert_equal [rraw $rc {*}$cmd] [rraw $c {*}$cmd] $cmd
        }
    }

    test "HyperLogLogs copied between the servers count the same" {
        foreach n {5 700 50000} {
            r $rc DEL src
            r $c DEL src
            pfadd_many $rc src [elements "copy$n:" $n]
            pfadd_many $c src [elements "other$n:" $n]
            set from_ref [r $rc GET src]
            set from_us [r $c GET src]
            r $c SET copied $from_ref
            r $rc SET copied $from_us
            assert_equal [r $rc PFCOUNT src] [r $c PFCOUNT copied] "redis-made, n=$n"
            assert_equal [r $c PFCOUNT src] [r $rc PFCOUNT copied] "cairn-made, n=$n"
            # And adding more to the copies keeps them identical.
            r $c SET copied $from_ref
            r $rc SET copied $from_ref
            r $c PFADD copied {*}[elements more 50]
            r $rc PFADD copied {*}[elements more 50]
            assert {[r $c GET copied] eq [r $rc GET copied]} "after PFADD, n=$n"
        }
    }

    test "corrupted values get the same replies as on the reference" {
        r $rc DEL src
        pfadd_many $rc src [elements k 250]
        set sparse [r $rc GET src]
        r $rc PFDEBUG TODENSE src
        set dense [r $rc GET src]
        # Both servers merge the corrupted value with the same "src".
        r $c SET src $sparse
        r $rc SET src $sparse
        set seed 99
        for {set i 0} {$i < 400} {incr i} {
            set seed [expr {($seed * 1103515245 + 12345) & 0x7fffffff}]
            set v [expr {$seed % 2 ? $sparse : $dense}]
            set kind [expr {($seed >> 4) % 5}]
            set pos [expr {16 + ($seed >> 9) % ([string length $v] - 16)}]
            switch $kind {
                0 { set v [string replace $v $pos $pos [format %c [expr {($seed >> 3) & 255}]]] }
                1 { set v [string range $v 0 $pos] }
                2 { append v [format %c [expr {($seed >> 3) & 255}]] }
                3 { set v [string replace $v $pos $pos] }
                4 { set v [string replace $v 4 4 [format %c [expr {($seed >> 3) & 3}]]] }
            }
            set cmd [lindex {
                {PFADD cor a b c d e f g h i j} {PFCOUNT cor} {PFCOUNT cor src}
                {PFMERGE out cor} {PFDEBUG TODENSE cor} {PFDEBUG DECODE cor}
                {PFDEBUG GETREG cor}
            } [expr {($seed >> 12) % 7}]]
            foreach s [list $c $rc] {
                r $s DEL out
                r $s SET cor $v
            }
            assert_equal [rraw $rc {*}$cmd] [rraw $c {*}$cmd] "$cmd on variant $i"
            assert_equal [rraw $rc GET cor] [rraw $c GET cor] "value after $cmd, variant $i"
            assert_equal [rraw $rc GET out] [rraw $c GET out] "out after $cmd, variant $i"
        }
    }
    stop_server $ref
}

finish
