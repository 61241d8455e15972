// The methods side by side, with learned parameter counts computed by pe.parameterCount for a
// BERT-base-sized model (512 positions, d = 768, 12 heads of 64).
import { $, demo } from '../common.mjs';

const L = 512, d = 768, heads = 12, headDim = 64;
const ROWS = [
  ['sinusoidal', 'additive', 'Vaswani et al.; HF DistilBERT / Marian; tensor2tensor', 'absolute', 'yes (fixed function)', {}],
  ['learned', 'additive', 'BERT, GPT-2; RoBERTa position ids', 'absolute', 'no (table ends)', { maxPositions: L, dim: d }],
  ['binary', 'additive', 'bit codes with learned per-bit vectors', 'absolute', 'up to 2^bits', { bits: 9, dim: d }],
  ['lowRank', 'additive', 'coefficients × basis', 'absolute', 'no', { maxPositions: L, rank: 32, dim: d }],
  ['axial', 'additive', 'Reformer AxialPositionEmbeddings', 'absolute', 'within the shape', { shape: [16, 32], dims: [256, 512] }],
  ['sine2d', 'additive', 'DETR PositionEmbeddingSine', 'absolute (2-D)', 'yes', {}],
  ['rope', 'rotary', 'RoFormer; HF Llama/NeoX, GPT-J; llama.cpp', 'relative via rotation', 'with PI / NTK / YaRN / llama3 / longrope', {}],
  ['alibi', 'score term', 'Press et al.; Bloom, MPT', 'relative bias', 'yes', {}],
  ['t5', 'score term', 'HF T5Attention buckets', 'relative bias', 'saturates past max_distance', { heads }],
  ['shaw', 'score term', 'tensor2tensor _relative_attention_inner', 'relative (content × position)', 'clipped at K', { clip: 16, headDim }],
  ['xl', 'score term', 'Transformer-XL RelPartialLearnable', 'relative (content × position)', 'yes (sinusoid R)', { heads, headDim, dModel: d }],
  ['deberta', 'score term', 'HF / microsoft DeBERTa (c2p + p2c)', 'relative (disentangled)', 'log buckets', { span: 256, hidden: d }],
  ['relativeKey', 'score term', 'HF BERT relative_key(_query)', 'relative (content × position)', 'no (±max_pos)', { maxPosition: L, headDim }],
];

export function compareSection(pe) {
  return function draw() {
    const body = $('compare-body');
    const counts = {};
    body.replaceChildren(...ROWS.map(([method, family, reference, kind, extrapolation, shape]) => {
      const n = pe.parameterCount(method, shape);
      counts[method] = n;
      const tr = document.createElement('tr');
      const fam = family === 'additive' ? 'add' : family === 'rotary' ? 'rot' : 'score';
      tr.innerHTML = `<td><code>${method}</code></td><td><span class="tag ${fam}">${family}</span></td><td>${kind}</td>` +
        `<td class="num">${n === 0 ? '0' : n.toLocaleString('en-US')}</td><td>${extrapolation}</td><td>${reference}</td>`;
      return tr;
    }));
    demo.parameterCounts = counts;
  };
}
