"""LARA's graded calibration and selection, copied for comparison only (tests/ir/test_calibration.py checks
ir/calibration.py against it step by step).

Source: https://github.com/RikiyaT/LARA, file src/utils/algo.py, commit 482cb834c103a043b932a6e22d988945be5832bd
(2025-06-20), class GradualMultinomialLogisticRegression and function ours_graded, by Rikiya Takehi et al.,
"LLM-Assisted Relevance Assessments: When Should We Ask LLMs for Help?" (SIGIR 2025, arXiv:2411.06877).
Licence: the repository has no licence file and its README states none, so the code is the authors' (all rights
reserved); it is kept here verbatim, as a test-only reference with this credit, and is not shipped in the product.
Changes: the file's imports reduced to the ones these two need; the code itself is unchanged.
"""
# ruff: noqa
import numpy as np
import pandas as pd
from tqdm import tqdm



class GradualMultinomialLogisticRegression:
    def __init__(self, learning_rate, n_classes, random_state=None):
        self.learning_rate = learning_rate
        self.n_classes = n_classes
        self.random_state = random_state
        np.random.seed(random_state)
        
        # Initialize parameters
        self.beta0 = np.zeros(n_classes)  # Bias terms for each class
        self.beta = np.zeros((n_classes, n_classes))  # Coefficients for each class
        
    def softmax(self, z):
        exp_z = np.exp(z - np.max(z, axis=1, keepdims=True))  # For numerical stability
        return exp_z / exp_z.sum(axis=1, keepdims=True)
    
    def predict_proba(self, pi):
        """
        Predict calibrated probabilities based on LLM predictions.
        """
        # pi: shape (n_samples, n_classes)
        z = self.beta0 + np.dot(pi, self.beta.T)  # Shape (n_samples, n_classes)
        probs = self.softmax(z)
        return probs  # Shape (n_samples, n_classes)
    
    def update_params(self, X, y):
        """
        Update model parameters using gradient descent.
        """
        n_samples = X.shape[0]
        z = self.beta0 + np.dot(X, self.beta.T)  # Shape (n_samples, n_classes)
        y_pred = self.softmax(z)  # Shape (n_samples, n_classes)
        
        # One-hot encode the true labels
        y_true = np.zeros_like(y_pred)
        y_true[np.arange(n_samples), y] = 1
        
        # Compute gradients
        grad_beta0 = np.mean(y_pred - y_true, axis=0)  # Shape (n_classes,)
        grad_beta = np.dot((y_pred - y_true).T, X) / n_samples  # Shape (n_classes, n_classes)
        
        # Update parameters
        self.beta0 -= self.learning_rate * grad_beta0
        self.beta -= self.learning_rate * grad_beta
        
    def fit(self, X, y):
        """
        Fit the model to new data.
        """
        self.update_params(X, y)
        
    def sample_next(self, data):
        """
        Select the next data point to annotate based on the smallest margin.
        """
        pi_columns = [f'prob_{k}' for k in range(self.n_classes)]
        pi = data[pi_columns].values  # Shape (n_samples, n_classes)
        probs = self.predict_proba(pi)  # Shape (n_samples, n_classes)
        
        # Compute margins between top two predicted classes
        sorted_probs = np.sort(probs, axis=1)
        margins = sorted_probs[:, -1] - sorted_probs[:, -2]
        idx = np.argmin(margins)
        return data.iloc[idx]

def ours_graded(data, annotation_budget, learning_rate, batch_size, lambda_, random_state=None, n_groups=1):
    import random
    # Set random seed for reproducibility
    random.seed(random_state)
    np.random.seed(random_state)
    
    # Check if we're annotating everything
    total_docs = len(data)
    final_dataset = data.copy()
    if annotation_budget >= total_docs - 1:
        print(f"Annotation budget ({annotation_budget}) >= total documents ({total_docs}). Annotating everything.")
        final_dataset['annotation_pred'] = final_dataset['annotation']
        return final_dataset[final_dataset['annotation_pred'].notna()], final_dataset
    
    # Initialize all data as unlabeled
    unlabeled_pool = data.copy()
    unlabeled_pool['is_labeled'] = False
    
    # Determine the number of classes
    n_classes = len([col for col in data.columns if col.startswith('prob_')])
    
    model = GradualMultinomialLogisticRegression(
        learning_rate=learning_rate,
        n_classes=n_classes,
        random_state=random_state,
    )
    
    # Ensure n_groups is within valid range
    n_groups = max(1, min(n_groups, len(unlabeled_pool['topic_id'].unique())))
    
    # Group data by topic_id and get group sizes
    topic_groups = unlabeled_pool.groupby('topic_id')
    group_sizes = topic_groups.size().values
    
    # Randomly assign topics to groups, ensuring a balanced distribution
    topic_ids = unlabeled_pool['topic_id'].unique()
    random.shuffle(topic_ids)
    groups = [[] for _ in range(n_groups)]
    group_doc_counts = [0] * n_groups
    for topic_id in topic_ids:
        group_index = min(range(n_groups), key=lambda i: group_doc_counts[i])
        groups[group_index].append(topic_id)
        group_doc_counts[group_index] += len(unlabeled_pool[unlabeled_pool['topic_id'] == topic_id])
    
    # Calculate initial budget per group
    group_budgets = [min(count, annotation_budget // n_groups) for count in group_doc_counts]
    remaining_budget = annotation_budget - sum(group_budgets)
    
    # Distribute remaining budget
    while remaining_budget > 0:
        for i in range(n_groups):
            if group_budgets[i] < group_doc_counts[i] and remaining_budget > 0:
                group_budgets[i] += 1
                remaining_budget -= 1
            if remaining_budget == 0:
                break
    
    total_annotations = 0
    
    # Use tqdm to track progress of annotations
    with tqdm(total=annotation_budget, desc="Annotating") as pbar:
        while total_annotations < annotation_budget:
            for group_index, group in enumerate(groups):
                if group_budgets[group_index] > 0:
                    group_mask = unlabeled_pool['topic_id'].isin(group)
                    group_data = unlabeled_pool[group_mask & ~unlabeled_pool['is_labeled']]
                    
                    if len(group_data) == 0:
                        # Redistribute budget if group is exhausted
                        remaining_budget = group_budgets[group_index]
                        group_budgets[group_index] = 0
                        for i in range(n_groups):
                            if i != group_index and group_budgets[i] < group_doc_counts[i]:
                                transfer = min(remaining_budget, group_doc_counts[i] - group_budgets[i])
                                group_budgets[i] += transfer
                                remaining_budget -= transfer
                            if remaining_budget == 0:
                                break
                        continue
                    
                    # Sample the next point to annotate from the current group
                    next_sample = model.sample_next(group_data)
                    
                    unlabeled_pool.loc[next_sample.name, 'is_labeled'] = True
                    # Get the pi values and the annotation
                    pi_columns = [f'prob_{k}' for k in range(n_classes)]
                    X_new = next_sample[pi_columns].values.reshape(1, -1)
                    y_new = np.array([next_sample['annotation']])
                    
                    # Update the model with the new labeled point
                    model.fit(X_new, y_new)
                    
                    total_annotations += 1
                    group_budgets[group_index] -= 1
                    pbar.update(1)
                    
                    if total_annotations >= annotation_budget:
                        break
                
                if all(budget == 0 for budget in group_budgets):
                    break
    
    final_dataset = data.copy()
    
    # For annotated points, use the actual annotations
    labeled_data = unlabeled_pool[unlabeled_pool['is_labeled']]
    final_dataset.loc[labeled_data.index, 'annotation_pred'] = labeled_data['annotation']
    
    # For non-annotated points, use model predictions
    non_annotated_mask = ~final_dataset.index.isin(labeled_data.index)
    non_annotated_data = final_dataset.loc[non_annotated_mask]
    pi_columns = [f'prob_{k}' for k in range(n_classes)]
    pi_values = non_annotated_data[pi_columns].values
    predictions_proba = model.predict_proba(pi_values)
    predictions = np.argmax(predictions_proba, axis=1)
    
    final_dataset.loc[non_annotated_mask, 'annotation_pred'] = predictions
    
    return labeled_data, final_dataset

