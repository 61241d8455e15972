// Per method (pe.describe()'s kind): the paper that introduced it and the upstream code whose numbers
// posenc reproduces. pe.describe() names them in words; the addresses live here, next to the page that
// links them. null: no single paper or upstream (the design's own math, see DESIGN.md).
// Every arXiv id below was checked against the paper's title and authors, and every GitHub path against the
// repository's files (and its default branch), on 2026-12-02.
const arxiv = (id) => `https://arxiv.org/abs/${id}`;
const gh = (path) => `https://github.com/${path}`;
const HF = (file) => gh(`huggingface/transformers/blob/main/src/transformers/${file}`);
// pinned to a v4 release tag where main no longer holds the code (see the entry's comment)
const HF_V4 = (file) => gh(`huggingface/transformers/blob/v4.40.0/src/transformers/${file}`);
const T2T = gh('tensorflow/tensor2tensor/blob/master/tensor2tensor/layers/common_attention.py');

export const METHOD_LINKS = {
  none: { paper: [['Haviv et al. 2022', arxiv('2203.16634')], ['Kazemnejad et al. 2023', arxiv('2305.19466')]], code: null },
  sinusoidal: { paper: [['Vaswani et al. 2017', arxiv('1706.03762')]], code: [['tensor2tensor', T2T]] },
  learned: { paper: [['Devlin et al. 2018 (BERT)', arxiv('1810.04805')]], code: [['google-research/bert', gh('google-research/bert/blob/master/modeling.py')]] },
  binary: null,
  lowRank: null,
  sparse: null,
  randomFeatures: { paper: [['Tancik et al. 2020 (Fourier features of coordinates)', arxiv('2006.10739')]], code: [['fourier-feature-networks', gh('tancik/fourier-feature-networks')]] },
  axial: { paper: [['Kitaev et al. 2020 (Reformer)', arxiv('2001.04451')]], code: [['HF Reformer', HF('models/reformer/modeling_reformer.py')]] },
  twoLevel: null,
  sine2d: { paper: [['Carion et al. 2020 (DETR)', arxiv('2005.12872')]], code: [['DETR position_encoding.py', gh('facebookresearch/detr/blob/main/models/position_encoding.py')]] },
  sine3d: { paper: null, code: [['DETR position_encoding.py (2-D form)', gh('facebookresearch/detr/blob/main/models/position_encoding.py')]] },
  resizeGrid: { paper: [['Dosovitskiy et al. 2020 (ViT)', arxiv('2010.11929')]], code: [['HF ViT interpolate_pos_encoding', HF('models/vit/modeling_vit.py')]] },
  rope: { paper: [['Su et al. 2021 (RoFormer)', arxiv('2104.09864')]], code: [['HF modeling_rope_utils.py', HF('modeling_rope_utils.py')]] },
  temperature: { paper: [['Nakanishi 2025 (Scalable-Softmax)', arxiv('2501.19399')]], code: [['HF Llama 4', HF('models/llama4/modeling_llama4.py')]] },
  alibi: { paper: [['Press et al. 2021', arxiv('2108.12409')]], code: [['attention_with_linear_biases', gh('ofirpress/attention_with_linear_biases')]] },
  t5: { paper: [['Raffel et al. 2019 (T5)', arxiv('1910.10683')]], code: [['HF T5Attention', HF('models/t5/modeling_t5.py')]] },
  swin: { paper: [['Liu et al. 2021 (Swin)', arxiv('2103.14030')]], code: [['Swin WindowAttention', gh('microsoft/Swin-Transformer/blob/main/models/swin_transformer.py')]] },
  shaw: { paper: [['Shaw et al. 2018', arxiv('1803.02155')]], code: [['tensor2tensor', T2T]] },
  xl: { paper: [['Dai et al. 2019 (Transformer-XL)', arxiv('1901.02860')]], code: [['kimiyoung/transformer-xl', gh('kimiyoung/transformer-xl/blob/master/pytorch/mem_transformer.py')]] },
  deberta: { paper: [['He et al. 2020 (DeBERTa)', arxiv('2006.03654')]], code: [['microsoft/DeBERTa', gh('microsoft/DeBERTa')], ['HF DeBERTa', HF('models/deberta/modeling_deberta.py')]] },
  // relative_key / relative_key_query were removed from BERT on transformers main for v5 (huggingface/transformers#41170),
  // so the code link is pinned to the v4.40.0 tag, whose BertSelfAttention still has them.
  relativeKey: { paper: [['Huang et al. 2020', arxiv('2009.13658')]], code: [['HF BertSelfAttention (v4.40.0)', HF_V4('models/bert/modeling_bert.py')]] },
  kerple: { paper: [['Chi et al. 2022 (KERPLE)', arxiv('2205.09921')]], code: [['chijames/KERPLE', gh('chijames/KERPLE')]] },
  fire: { paper: [['Li et al. 2023 (FIRE, ICLR 2024)', arxiv('2310.04418')]], code: null },
  cope: { paper: [['Golovneva et al. 2024 (CoPE)', arxiv('2405.18719')]], code: [['facebookresearch/RAM cope', gh('facebookresearch/RAM/tree/main/projects/cope')]] },
};
