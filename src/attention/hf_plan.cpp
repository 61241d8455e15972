// attentionConfigFromHF: the config reader's layer reading (rotary/hf_reader.hpp) turned into the
// objects attention, the KV cache and its attend take.
#include "posenc/attention/hf_plan.hpp"

#include <cmath>

#include "common/json.hpp"
#include "rotary/hf_reader.hpp"

namespace posenc {

AttentionPlan attentionConfigFromHF(std::string_view json, int layer, const HfConfigOptions& options) {
    detail::HfLayerReading r = detail::readHfLayer(json, layer, options);
    const HfAttentionShape& a = r.config.attention;
    const HfLayer& l = a.layers.at(static_cast<std::size_t>(layer));
    const detail::HfAttentionTerms& t = r.terms;

    AttentionPlan p;
    p.layer = layer;
    p.layerInfo = l;
    p.modelType = r.config.modelType;
    p.scaleRule = t.scaleRule;

    if (t.rotaryOffset) {
        // MLA: the reader's table is the qk_rope_head_dim rope head; the plan rotates it inside the whole q.k head, from
        // qk_nope_head_dim on (the smallest factor whose int(headDim * factor) is the rope head, as rotaryDimOf truncates)
        RopeConfig& rc = r.config.rope;
        const int ropeDim = rc.headDim, head = a.headDim;
        double f = static_cast<double>(ropeDim) / head;
        while (static_cast<int>(head * f) < ropeDim) f = std::nextafter(f, 2.0);
        rc.headDim = head, rc.partialRotaryFactor = f, rc.rotaryOffset = t.rotaryOffset;
        r.config.given.emplace_back("partialRotaryFactor");
        r.config.given.emplace_back("rotaryOffset");
    }
    std::optional<RopeEncoding> rope;
    if (t.rotary && l.rope) rope = RopeEncoding{r.config.rope, r.config.layout};
    std::optional<TemperatureEncoding> temperature;
    if (l.temperature && r.config.temperature) temperature = *r.config.temperature;

    AttentionRequest& q = p.attention;
    q.dims.heads = a.heads, q.dims.kvHeads = a.kvHeads, q.dims.headDim = a.headDim, q.dims.valueDim = t.valueDim;
    q.causal = t.causal;
    q.scale = t.scale;
    q.window = l.window;
    q.chunk = l.chunk;
    if (t.softcap > 0) q.softcap = t.softcap;
    if (t.alibi) q.encoding = AlibiEncoding{a.heads, {}, false};
    else if (rope && temperature) q.encoding = CombinedEncoding{{*rope, *temperature}};
    else if (rope) q.encoding = *rope;
    else if (temperature) q.encoding = *temperature;

    KVCacheConfig& c = p.cache;
    c.kvHeads = a.kvHeads, c.headDim = a.headDim, c.valueDim = t.valueDim;
    c.rope = rope;
    c.window = l.chunk ? l.chunk : l.window;  // a chunked layer's cache holds its one chunk (HF's chunked cache)
    c.chunk = l.chunk;

    p.attend.heads = a.heads;
    p.attend.scale = t.scale;
    p.attend.softcap = q.softcap;
    if (t.alibi) p.attend.encoding = AlibiEncoding{a.heads, {}, false};
    else if (temperature) p.attend.encoding = *temperature;

    if (t.sinkLogits) p.requires.emplace_back("sinkLogits");
    p.reading = std::move(r.config);
    return p;
}

namespace {

void writeTemperature(json::Writer& w, const TemperatureEncoding& t) {
    w.open('{').key("kind").string("temperature").key("beta").number(t.beta);
    w.key("length").number(static_cast<double>(t.length)).key("offset").number(static_cast<double>(t.offset)).close('}');
}

// The plan's encodings are the ones attentionConfigFromHF builds: none, rope, temperature, alibi, or rope +
// temperature; the rope part is the reading's table, written with the keys the config sets.
void writeEncoding(json::Writer& w, const Encoding& e, const HfRopeConfig& reading) {
    if (const auto* c = std::get_if<CombinedEncoding>(&e)) {
        w.open('[');
        for (const Encoding& part : c->parts) writeEncoding(w, part, reading);
        w.close(']');
    } else if (std::holds_alternative<RopeEncoding>(e)) {
        detail::writeRopeOptions(w, reading, "rope");
    } else if (const auto* t = std::get_if<TemperatureEncoding>(&e)) {
        writeTemperature(w, *t);
    } else if (const auto* a = std::get_if<AlibiEncoding>(&e)) {
        w.open('{').key("kind").string("alibi").key("heads").number(a->heads).close('}');
    } else {
        w.open('{').key("kind").string("none").close('}');
    }
}

}  // namespace

std::string toJson(const AttentionPlan& p) {
    const HfLayer& l = p.layerInfo;
    json::Writer w;
    w.open('{').key("layer").open('{').key("index").number(p.layer).key("type").string(l.type).key("rope").boolean(l.rope);
    w.key("window").number(l.window).key("chunk").number(l.chunk).key("temperature").boolean(l.temperature).close('}');
    w.key("modelType").string(p.modelType);

    const AttentionRequest& q = p.attention;
    w.key("attention").open('{').key("heads").number(q.dims.heads).key("kvHeads").number(q.dims.kvHeads).key("headDim").number(q.dims.headDim);
    if (q.dims.valueDim) w.key("valueDim").number(q.dims.valueDim);
    w.key("causal").boolean(q.causal).key("scale").number(q.scale).key("encoding");
    writeEncoding(w, q.encoding, p.reading);
    if (q.window) w.key("window").number(q.window);
    if (q.chunk) w.key("chunk").number(q.chunk);
    if (q.softcap) w.key("softcap").number(*q.softcap);
    w.close('}');

    const KVCacheConfig& c = p.cache;
    w.key("cache").open('{').key("kvHeads").number(c.kvHeads).key("headDim").number(c.headDim);
    if (c.valueDim) w.key("valueDim").number(c.valueDim);
    if (c.rope) w.key("rope"), detail::writeRopeOptions(w, p.reading);
    if (c.window) w.key("window").number(c.window);
    if (c.chunk) w.key("chunk").number(c.chunk);
    w.close('}');

    w.key("attend").open('{').key("heads").number(p.attend.heads).key("scale").number(p.attend.scale);
    if (!std::holds_alternative<NoEncoding>(p.attend.encoding)) w.key("encoding"), writeEncoding(w, p.attend.encoding, p.reading);
    if (p.attend.softcap) w.key("softcap").number(*p.attend.softcap);
    w.close('}');

    w.key("requires").strings(p.requires).key("scaleRule").string(p.scaleRule).key("ignored").open('[');
    for (const HfIgnoredKey& i : p.reading.ignored) w.open('{').key("key").string(i.key).key("value").raw(i.value).key("reason").string(i.reason).close('}');
    w.close(']').key("warnings").strings(p.reading.warnings);
    return w.close('}').text();
}

}  // namespace posenc
