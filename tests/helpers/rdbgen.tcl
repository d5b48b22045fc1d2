# rdbgen.tcl -- builds RDB files byte by byte, for the snapshot tests: old
# encodings (ziplist, zipmap, listpack sets) that no Redis 7.0 writes, and
# deliberately broken files. Every proc returns a byte string.
#
#   rdb_file VERSION BODY        header + BODY + EOF (+ a zero checksum, which
#                                loaders treat as "not computed", for v >= 5)
#   rdb_key TYPE KEY PAYLOAD     one key: type byte, key string, payload
#   rdb_len N / rdb_str S        length and string encodings
#   ziplist ITEMS                ITEMS: strings, or {int N} for an integer entry
#   zipmap PAIRS                 a zipmap of field value ...
#   listpack ITEMS               a listpack of short strings and small ints

proc rdb_len {n} {
    if {$n < 64} { return [binary format c $n] }
    if {$n < 16384} { return [binary format cc [expr {($n >> 8) | 0x40}] [expr {$n & 0xff}]] }
    return [binary format cI 0x80 $n]
}

proc rdb_str {s} { return "[rdb_len [string length $s]]$s" }

proc rdb_key {type key payload} {
    return "[binary format c $type][rdb_str $key]$payload"
}

proc rdb_file {version body} {
    set out [format "REDIS%04d" $version]
    append out $body [binary format c 0xff]
    if {$version >= 5} { append out [string repeat \x00 8] }
    return $out
}

# The encoding and data of one ziplist entry (without prevlen).
proc ::rdbgen_zl_payload {item} {
    if {[llength $item] == 2 && [lindex $item 0] eq "int"} {
        set v [lindex $item 1]
        if {$v >= 0 && $v <= 12} { return [binary format c [expr {0xF1 + $v}]] }
        if {$v >= -128 && $v <= 127} { return [binary format cc 0xFE $v] }
        if {$v >= -32768 && $v <= 32767} { return [binary format cs 0xC0 $v] }
        if {$v >= -8388608 && $v <= 8388607} {
            return [binary format c 0xF0][string range [binary format i $v] 0 2]
        }
        if {$v >= -2147483648 && $v <= 2147483647} { return [binary format ci 0xD0 $v] }
        return [binary format cw 0xE0 $v]
    }
    set n [string length $item]
    if {$n < 64} { return "[binary format c $n]$item" }
    if {$n < 16384} { return "[binary format cc [expr {($n >> 8) | 0x40}] [expr {$n & 0xff}]]$item" }
    return "[binary format cI 0x80 $n]$item"
}

proc ziplist {items} {
    set body ""
    set prev 0
    set tail 10
    foreach item $items {
        set tail [expr {10 + [string length $body]}]
        if {$prev < 254} {
            set entry [binary format c $prev]
        } else {
            set entry [binary format ci 0xFE $prev]
        }
        append entry [::rdbgen_zl_payload $item]
        append body $entry
        set prev [string length $entry]
    }
    set total [expr {10 + [string length $body] + 1}]
    set n [llength $items]
    if {$n > 65535} { set n 65535 }
    return "[binary format iis $total $tail $n]$body\xff"
}

proc zipmap {pairs} {
    set n [expr {[llength $pairs] / 2}]
    set out [binary format c [expr {$n < 254 ? $n : 254}]]
    foreach {f v} $pairs {
        foreach s [list $f $v] isval {0 1} {
            set l [string length $s]
            if {$l < 254} { append out [binary format c $l] } else { append out [binary format ci 254 $l] }
            if {$isval} { append out \x00 }
            append out $s
        }
    }
    return "$out\xff"
}

# Strings shorter than 64 bytes and integers 0..127 only.
proc listpack {items} {
    set body ""
    foreach item $items {
        if {[string is integer -strict $item] && $item >= 0 && $item <= 127} {
            append body [binary format cc $item 1]
        } else {
            set l [string length $item]
            append body [binary format c [expr {0x80 | $l}]] $item [binary format c [expr {$l + 1}]]
        }
    }
    set total [expr {6 + [string length $body] + 1}]
    return "[binary format is $total [llength $items]]$body\xff"
}
